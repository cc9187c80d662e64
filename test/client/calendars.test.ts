import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, createClient, NotFoundError, PreconditionFailedError, ValidationError } from '../../packages/client/src/index.js';
import type { CalendarConflict, CalendarFeed, CalendarImportsCreate, CalendarImportsRecord, CalendarImportsTypes, Client } from '../../packages/client/src/index.js';
import { openApiDocument } from '../../scripts/openapi-document.js';
import type { DialectName } from '../../src/db/dialect.js';
import { dialects } from '../support/databases.js';
import { startFeedServer } from '../support/feed-server.js';
import type { FeedServer } from '../support/feed-server.js';
import { freePort } from '../support/free-port.js';
import { createHarness, crud } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

/*
 * The client's calendar calls (docs/calendars.md, docs/client.md "Calendars") against the real
 * service listening on a socket, on both databases: a product's secret export feed, fetched
 * as a channel would; imports of a local feed server's feeds as blocks, their health and
 * refusals; and one product importing another's export.
 */

/** Next year: its May to September are always inside the 2 years the service exports and imports. */
const Y = new Date().getUTCFullYear() + 1;

/** An iCalendar feed as a channel writes it. */
function feed(...events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
const allDay = (uid: string, from: string, to: string) => ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART;VALUE=DATE:${from}`, `DTEND;VALUE=DATE:${to}`, 'SUMMARY:Reserved', 'END:VEVENT'].join('\r\n');

/** The service on `dialect`, listening on a free port with `PUBLIC_URL` = its origin, allowed to fetch feeds from loopback over http. */
async function listening(dialect: DialectName): Promise<{ h: Harness; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createHarness(dialect, { env: { PUBLIC_URL: origin, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
  await h.app.server.listen({ port, host: '127.0.0.1' });
  return { h, origin };
}

/** The rejection of `promise`, which must be an instance of `type`. */
async function rejection<T>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe.each(dialects)('client library: calendars on %s', (dialect) => {
  let h: Harness;
  let client: Client;
  let feeds: FeedServer;

  beforeAll(async () => {
    feeds = await startFeedServer();
    const service = await listening(dialect);
    h = service.h;
    const credentials = await h.client(await h.tenant('Channels'), [...crud('products'), ...crud('bookings')]);
    const privateKey = credentials.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey });
  });
  afterAll(async () => {
    await h.close();
    await feeds.close();
  });

  const product = async (total = 1) =>
    (await client.products.create({ name: 'Flat', address: 'Rua A 1', city: 'Lisbon', zip_code: '1000', total_items: total, time_zone: 'Europe/Lisbon' })).record._id;

  it('gives a product a secret feed URL that a channel fetches without a token, and rotation retires the old one', async () => {
    const p = await product(2);
    const booked = (await client.bookings.create({ product_id: p, start_time: `${Y}-03-01T14:00:00Z`, end_time: `${Y}-03-04T10:00:00Z`, quantity: 2, notes: 'Guest Ana', reference: 'AB-1' })).record;
    const calendar = client.products.calendarFeed(p);
    await rejection(calendar.get(), NotFoundError);

    const first: CalendarFeed = await calendar.rotate();
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/calendars\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(Date.parse(first.created_at)).not.toBeNaN();
    expect(await calendar.get()).toEqual(first);

    // A channel fetches the URL as it is: no token, an ETag, then 304.
    const fetched = await fetch(first.url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const text = await fetched.text();
    expect(text).toContain(`UID:${booked._id}@127.0.0.1:`);
    expect(text).toContain(`DTSTART:${Y}0301T140000Z`);
    expect(text).toContain('SUMMARY:Booked (2 units)');
    expect(text).not.toMatch(/Ana|AB-1/);
    const etag = fetched.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await fetch(first.url, { headers: { 'if-none-match': etag } })).status).toBe(304);

    // With an idempotency key a repeated rotation answers the first one's URL.
    const key = crypto.randomUUID();
    const second = await calendar.rotate({ idempotencyKey: key });
    expect(await calendar.rotate({ idempotencyKey: key })).toEqual(second);
    expect(second.url).not.toBe(first.url);
    expect((await fetch(first.url)).status).toBe(404);
    expect((await fetch(second.url)).status).toBe(200);
    expect(await calendar.get()).toEqual(second);

    await rejection(client.products.calendarFeed('no-such-product').rotate(), NotFoundError);
    expect(() => client.products.calendarFeed('')).toThrow(TypeError);
  });

  it("imports a channel's feed as blocks: create syncs at once, sync applies changes, delete cancels the blocks", async () => {
    const p = await product(1);
    feeds.set(`/${dialect}/airbnb.ics`, { body: feed(allDay('a1@airbnb.com', `${Y}0510`, `${Y}0513`), allDay('a2@airbnb.com', `${Y}0520`, `${Y}0522`)) });
    const imports = client.products.calendarImports(p);
    const body: CalendarImportsCreate = { url: `${feeds.origin}/${dialect}/airbnb.ics`, name: 'Airbnb' };
    const created = await imports.create(body);
    expect(created.replayed).toBe(false);
    expect(created.record).toMatchObject({ ...body, product_id: p, units: 1, status: 'ok', events: 2, skipped: 0, conflicts: [], last_error: null, stale_since: null });
    expect(created.record.last_success_at).toBe(created.record.last_synced_at);
    const id = created.record._id;

    // The blocks are bookings of the product, local days of Lisbon (UTC+1 in May).
    const blocks = await client.bookings
      .list({ where: { calendar_import_id: id }, sort: ['start_time'], fields: ['start_time', 'end_time', 'status', 'source', 'external_uid', 'quantity'] })
      .toArray();
    expect(blocks).toEqual([
      { _id: expect.any(String), start_time: `${Y}-05-09T23:00:00.000Z`, end_time: `${Y}-05-12T23:00:00.000Z`, status: 'active', source: 'calendar', external_uid: 'a1@airbnb.com', quantity: 1 },
      { _id: expect.any(String), start_time: `${Y}-05-19T23:00:00.000Z`, end_time: `${Y}-05-21T23:00:00.000Z`, status: 'active', source: 'calendar', external_uid: 'a2@airbnb.com', quantity: 1 },
    ]);
    const taken = await rejection(client.bookings.create({ product_id: p, start_time: `${Y}-05-11T10:00:00Z`, end_time: `${Y}-05-11T12:00:00Z` }), ConflictError);
    expect(taken.code).toBe('capacity_exceeded');
    // A block changes only through its feed.
    const block = await client.bookings.get(blocks[0]?._id ?? '');
    const managed = await rejection(client.bookings.update(block.record._id, { status: 'cancelled' }, { etag: block.etag }), ConflictError);
    expect([managed.code, managed.problem.calendar_import_id]).toEqual(['managed_by_calendar', id]);
    expect((await rejection(client.bookings.delete(block.record._id, { etag: block.etag }), ConflictError)).code).toBe('managed_by_calendar');

    // The channel moves one stay and drops the other; a sync applies both at once.
    feeds.set(`/${dialect}/airbnb.ics`, { body: feed(allDay('a1@airbnb.com', `${Y}0511`, `${Y}0514`)) });
    const synced = await imports.sync(id);
    expect(synced.record).toMatchObject({ _id: id, status: 'ok', events: 1 });
    expect(synced.etag).not.toBe(created.etag);
    const after = await client.bookings.list({ where: { calendar_import_id: id }, sort: ['start_time'], fields: ['external_uid', 'start_time', 'status'] }).toArray();
    expect(after.map((b) => [b.external_uid, b.start_time, b.status])).toEqual([
      ['a1@airbnb.com', `${Y}-05-10T23:00:00.000Z`, 'active'],
      ['a2@airbnb.com', `${Y}-05-19T23:00:00.000Z`, 'cancelled'],
    ]);

    // Reading: list with the query language, get with its ETag.
    expect(await imports.list({ where: { status: 'ok' }, fields: ['name', 'events'] }).toArray()).toEqual([{ _id: id, name: 'Airbnb', events: 1 }]);
    const read = await imports.get(id);
    expect(read).toEqual(synced);

    await rejection(imports.delete(id, { etag: created.etag }), PreconditionFailedError);
    await imports.delete(id, { etag: read.etag });
    await rejection(imports.get(id), NotFoundError);
    const cancelled = await client.bookings.list({ where: { calendar_import_id: id }, fields: ['status'] }).toArray();
    expect(cancelled.map((b) => b.status)).toEqual(['cancelled', 'cancelled']);
    expect((await client.bookings.create({ product_id: p, start_time: `${Y}-05-11T10:00:00Z`, end_time: `${Y}-05-11T12:00:00Z` })).record.status).toBe('active');
  });

  it('reports conflicts and a broken feed in the health fields, and refuses URLs the service may not fetch', async () => {
    const p = await product(1);
    await client.bookings.create({ product_id: p, start_time: `${Y}-07-02T12:00:00Z`, end_time: `${Y}-07-03T12:00:00Z` });
    const path = `/${dialect}/booking.ics`;
    feeds.set(path, { body: feed(allDay('b1@booking.com', `${Y}0701`, `${Y}0704`), allDay('b2@booking.com', `${Y}0710`, `${Y}0711`)) });
    const imports = client.products.calendarImports(p);
    const { record } = await imports.create({ url: `${feeds.origin}${path}`, name: 'Booking.com', units: 1 });
    const conflict: CalendarConflict = { external_uid: 'b1@booking.com', start: `${Y}-06-30T23:00:00.000Z`, end: `${Y}-07-03T23:00:00.000Z`, available: 0 };
    expect(record).toMatchObject({ status: 'ok', events: 1, conflicts: [conflict] });

    // A broken feed changes no block: the import says why.
    feeds.set(path, { status: 503, body: 'down' });
    const failed = (await imports.sync(record._id)).record;
    expect(failed).toMatchObject({ status: 'failing', events: 1, conflicts: [conflict], last_success_at: record.last_success_at });
    expect(failed.last_error).toMatch(/HTTP 503/);
    expect(await client.bookings.list({ where: { calendar_import_id: record._id, status: 'active' }, fields: ['external_uid'] }).toArray()).toEqual([
      { _id: expect.any(String), external_uid: 'b2@booking.com' },
    ]);
    feeds.set(path, { headers: { 'content-type': 'text/html' }, body: '<html>Sign in</html>' });
    expect((await imports.sync(record._id)).record.last_error).toMatch(/not an iCalendar/);
    expect((await imports.list({ where: { status: 'failing' }, fields: ['status'] }).toArray()).map((i) => i._id)).toEqual([record._id]);

    for (const url of ['ftp://127.0.0.1/feed.ics', 'webcal://127.0.0.1/feed.ics', 'http://10.0.0.1/feed.ics', 'http://[::1]/feed.ics']) {
      const refused = await rejection(imports.create({ url }), ValidationError);
      expect(
        refused.errors.map((e) => e.field),
        url,
      ).toEqual(['url']);
    }
    const unknown = await rejection(imports.create({ url: `${feeds.origin}${path}`, status: 'ok' } as CalendarImportsCreate), ValidationError);
    expect(unknown.errors.map((e) => e.field)).toEqual(['status']);
    await rejection(client.products.calendarImports('no-such-product').list().toArray(), NotFoundError);
    await rejection(imports.sync('no-such-import'), NotFoundError);
    // An import is read only under its own product.
    await rejection(client.products.calendarImports(await product()).get(record._id), NotFoundError);
    expect(() => client.products.calendarImports('')).toThrow(TypeError);
    await expect(imports.sync('')).rejects.toThrow(TypeError);
  });

  it("imports another product's export: bookings block, cancellations (STATUS:CANCELLED) free", async () => {
    const [source, target] = [await product(1), await product(1)];
    const kept = (await client.bookings.create({ product_id: source, start_time: `${Y}-09-01T14:00:00Z`, end_time: `${Y}-09-03T10:00:00Z` })).record;
    const gone = await client.bookings.create({ product_id: source, start_time: `${Y}-09-10T14:00:00Z`, end_time: `${Y}-09-12T10:00:00Z` });
    await client.bookings.update(gone.record._id, { status: 'cancelled' }, { etag: gone.etag });
    const { url } = await client.products.calendarFeed(source).rotate();
    const { record } = await client.products.calendarImports(target).create({ url, name: 'Sister flat' });
    expect(record).toMatchObject({ status: 'ok', events: 1, skipped: 0, conflicts: [] });
    const blocks = await client.bookings.list({ where: { product_id: target }, fields: ['start_time', 'end_time', 'external_uid', 'source'] }).toArray();
    expect(blocks).toEqual([{ _id: expect.any(String), start_time: kept.start_time, end_time: kept.end_time, external_uid: `${kept._id}@${new URL(url).host}`, source: 'calendar' }]);
  });
});

/** Exactly the keys of `T` that are not optional. */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Json = Record<string, unknown>;

describe('client library: the calendar types match the OpenAPI document', () => {
  let paths: Record<string, Record<string, Json>>;

  beforeAll(async () => {
    paths = (await openApiDocument()).paths as unknown as Record<string, Record<string, Json>>;
  });

  const schemaOf = (path: string, method: string, where: 'request' | string): Json => {
    const operation = paths[path]?.[method] as Json;
    const holder = where === 'request' ? (operation.requestBody as Json) : ((operation.responses as Json)[where] as Json);
    return ((holder.content as Json)['application/json'] as Json).schema as Json;
  };
  const names = (schema: Json) => Object.keys(schema.properties as Json).sort();
  const required = (schema: Json) => [...((schema.required as string[] | undefined) ?? [])].sort();
  const keys = (record: Record<string, true>) => Object.keys(record).sort();

  it('has every member of a feed address, required where the document requires it', () => {
    const address: Record<keyof CalendarFeed, true> = { url: true, created_at: true };
    const addressRequired: Record<RequiredKeys<CalendarFeed>, true> = { url: true, created_at: true };
    for (const [method, status] of [
      ['post', '201'],
      ['get', '200'],
    ] as const) {
      const answer = schemaOf('/v1/products/{id}/calendar-feed', method, status);
      expect(keys(address)).toEqual(names(answer));
      expect(keys(addressRequired)).toEqual(required(answer));
    }
  });

  it('has every member of an import, its body, its conflicts, sort keys, fields and filters', () => {
    const record: Record<keyof CalendarImportsRecord, true> = {
      _id: true,
      tenant_id: true,
      created_at: true,
      updated_at: true,
      product_id: true,
      url: true,
      name: true,
      units: true,
      status: true,
      last_synced_at: true,
      last_success_at: true,
      last_error: true,
      events: true,
      skipped: true,
      conflicts: true,
      stale_since: true,
    };
    const recordRequired: Record<RequiredKeys<CalendarImportsRecord>, true> = { _id: true, tenant_id: true, created_at: true, updated_at: true, url: true, units: true };
    const create: Record<keyof CalendarImportsCreate, true> = { url: true, name: true, units: true };
    const createRequired: Record<RequiredKeys<CalendarImportsCreate>, true> = { url: true };
    const conflict: Record<keyof CalendarConflict, true> = { external_uid: true, start: true, end: true, available: true };
    const conflictRequired: Record<RequiredKeys<CalendarConflict>, true> = { external_uid: true, start: true, end: true, available: true };
    const sortKeys: Record<CalendarImportsTypes['sortKey'], true> = {
      _id: true,
      '-_id': true,
      tenant_id: true,
      '-tenant_id': true,
      created_at: true,
      '-created_at': true,
      updated_at: true,
      '-updated_at': true,
      last_synced_at: true,
      '-last_synced_at': true,
    };
    const fields: Record<CalendarImportsTypes['field'], true> = { ...record };
    const filters: Record<keyof CalendarImportsTypes['filter'], true> = {
      _id: true,
      tenant_id: true,
      created_at: true,
      updated_at: true,
      product_id: true,
      name: true,
      status: true,
      last_synced_at: true,
      last_success_at: true,
    };

    const collection = '/v1/products/{id}/calendar-imports';
    const answer = schemaOf(collection, 'post', '201');
    const createBody = schemaOf(collection, 'post', 'request');
    expect(keys(record)).toEqual(names(answer));
    expect(keys(recordRequired)).toEqual(required(answer));
    expect(keys(create)).toEqual(names(createBody));
    expect(keys(createRequired)).toEqual(required(createBody));
    const conflictSchema = ((answer.properties as Json).conflicts as Json).items as Json;
    expect(keys(conflict)).toEqual(names(conflictSchema));
    expect(keys(conflictRequired)).toEqual(required(conflictSchema));
    for (const [path, method, status] of [
      [`${collection}/{import_id}`, 'get', '200'],
      [`${collection}/{import_id}/sync`, 'post', '200'],
    ] as const) {
      expect(names(schemaOf(path, method, status)), path).toEqual(names(answer));
    }
    expect(paths[`${collection}/{import_id}`]?.patch).toBeUndefined();

    const parameters = ((paths[collection]?.get as Json).parameters as Json[]).filter((parameter) => typeof parameter.name === 'string');
    const enumOf = (name: string) => ((((parameters.find((parameter) => parameter.name === name)?.schema as Json).items as Json).enum as string[]) ?? []).slice().sort();
    expect(keys(sortKeys)).toEqual(enumOf('sort'));
    expect(keys(fields)).toEqual(enumOf('fields'));
    const filterNames = parameters.map((parameter) => String(parameter.name)).filter((name) => !name.includes('__') && name !== 'sort' && name !== 'fields');
    expect(keys(filters)).toEqual(filterNames.sort());
  });
});
