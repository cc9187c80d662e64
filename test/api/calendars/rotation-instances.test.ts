import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarApi } from '../../support/calendar-imports.js';
import type { CalendarApi } from '../../support/calendar-imports.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { secondInstance } from '../../support/second-instance.js';

/** The longest a rotation may take to reach every instance (the bound). */
const withinMs = 5_000;

/*
 * A feed URL's rotation is honoured by every instance (docs/calendars.md "Export"): the
 * public route looks the secret's hash up on every request and nothing caches it, so the
 * other instance answers 404 for the old URL and 200 for the new one at once — the first
 * request after the rotation's answer, well within the 5 s allowed. On PostgreSQL the
 * rotations and reads go to two instances on one database, each with its own pool. On
 * SQLite there is one instance: a server holds its data directory's lock (one server per
 * SQLite file, docs/operations.md), and the harness's SQLite database lives in its memory.
 */
describe.each(dialects)('feed rotation across instances on %s', (dialect) => {
  let h: Harness;
  let api: CalendarApi;
  let token: string;
  let other: Harness['request'];
  let closeOther: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const postgresUrl = dialect === 'postgres' ? await freshPostgresUrl({ migrated: true }) : undefined;
    h = await createHarness(dialect, { env: { ACCESS_TOKEN_TTL_SECONDS: '86400' }, ...(postgresUrl ? { database: { postgresUrl } } : {}) });
    token = await h.bearer(await h.tenant('Rotation'), [...crud('products'), ...crud('bookings')]);
    api = calendarApi(h.request, h.database, token);
    other = h.request;
    if (postgresUrl) {
      const second = await secondInstance(h, postgresUrl);
      other = second.request;
      closeOther = () => second.close();
    }
  });
  afterAll(async () => {
    await closeOther();
    await h?.close();
  });

  const get = (request: Harness['request'], url: string, headers: Record<string, string> = {}) => request({ method: 'GET', url: new URL(url).pathname, headers });
  const rotate = async (request: Harness['request'], productId: string) => {
    const rotated = await request({ method: 'POST', url: `/v1/products/${productId}/calendar-feed`, token });
    expect(rotated.statusCode, rotated.body).toBe(201);
    return String(rotated.json().url);
  };

  it('answers 404 for the old URL and 200 for the new one on the other instance right after a rotation, either way round', async () => {
    const productId = await api.product(2);
    let url = await rotate(h.request, productId);
    expect((await get(other, url)).statusCode).toBe(200);
    for (const [writer, reader] of [
      [h.request, other],
      [other, h.request],
      [h.request, other],
    ] as const) {
      const old = url;
      url = await rotate(writer, productId);
      const rotatedAt = Date.now();
      const [gone, found] = [await get(reader, old), await get(reader, url)];
      expect([gone.statusCode, found.statusCode]).toEqual([404, 200]);
      expect(Date.now() - rotatedAt).toBeLessThan(withinMs);
      expect(found.headers['content-type']).toBe('text/calendar; charset=utf-8');
      // The writer agrees, and the product's owner reads the new URL on both instances.
      expect([(await get(writer, old)).statusCode, (await get(writer, url)).statusCode]).toEqual([404, 200]);
      for (const request of [h.request, other]) expect((await request({ method: 'GET', url: `/v1/products/${productId}/calendar-feed`, token })).json().url).toBe(url);
    }
  });

  it('serves the same feed with the same ETag from every instance, so a 304 holds wherever the next request lands', async () => {
    const productId = await api.product(3);
    for (const day of [3, 9]) {
      const start = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + day * 86_400_000);
      const booked = await api.send('POST', '/v1/bookings', { product_id: productId, quantity: 1, start_time: start.toISOString(), end_time: new Date(start.getTime() + 86_400_000).toISOString() });
      expect(booked.statusCode, booked.body).toBe(201);
    }
    const url = await rotate(h.request, productId);
    const [mine, theirs] = [await get(h.request, url), await get(other, url)];
    expect(theirs.body).toBe(mine.body);
    expect(theirs.headers.etag).toBe(mine.headers.etag);
    expect((await get(other, url, { 'if-none-match': String(mine.headers.etag) })).statusCode).toBe(304);
  });
});
