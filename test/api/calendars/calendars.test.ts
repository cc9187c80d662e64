import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncDueImports } from '../../../src/calendars/calendar-sync-job.js';
import type { Clock } from '../../../src/core/clock.js';
import { dialects } from '../../support/databases.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedServer } from '../../support/feed-server.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/** An iCalendar feed of all-day and timed events, written as a channel would. */
function feed(...events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
const allDay = (uid: string, from: string, to: string, extra: string[] = []) =>
  ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART;VALUE=DATE:${from}`, `DTEND;VALUE=DATE:${to}`, 'SUMMARY:Reserved', ...extra, 'END:VEVENT'].join('\r\n');

/*
 * Calendars (docs/calendars.md): a product's secret export feed, and imports whose events
 * become blocks held to the capacity invariant; a broken feed never changes a block.
 */
describe.each(dialects)('calendars on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let client: Awaited<ReturnType<Harness['client']>>;
  let feeds: FeedServer;
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset };

  beforeAll(async () => {
    feeds = await startFeedServer();
    h = await createHarness(dialect, { clock, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', CALENDAR_SYNC_SECONDS: '900', ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    client = await h.client(await h.tenant('Channels'), [...crud('products'), ...crud('bookings')]);
  });
  // Tests move the clock on by days: each takes a token dated by it.
  beforeEach(async () => {
    token = await h.token(client, undefined, clock.now());
  });
  afterAll(async () => {
    await h.close();
    await feeds.close();
  });

  const request = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => h.request({ method, url, token, body, headers });
  const product = async (total = 1) =>
    String((await request('POST', '/v1/products', { name: 'Flat', address: 'A 1', city: 'Lisbon', zip_code: '1000', total_items: total, time_zone: 'Europe/Lisbon' })).json()._id);
  const blocks = async (productId: string) =>
    (
      await h.database.db
        .selectFrom('bookings')
        .select(['external_uid', 'start_time', 'end_time', 'status', 'source'])
        .where('product_id', '=', productId)
        .where('source', '=', 'calendar')
        .orderBy('start_time')
        .execute()
    ).map((row) => ({
      uid: row.external_uid,
      start: new Date(String(h.database.dialect.fromDb('timestamp', row.start_time))).toISOString(),
      status: row.status,
    }));

  it('exports the bookings that hold units, without personal data, behind a secret that rotation retires at once', async () => {
    const p = await product(3);
    const booked = (
      await request('POST', '/v1/bookings', {
        product_id: p,
        start_time: '2027-03-01T14:00:00Z',
        end_time: '2027-03-04T10:00:00Z',
        quantity: 2,
        notes: 'Guest Ana Quintela, +351 912 345 678',
        reference: 'REF-ZQX',
      })
    ).json();
    const cancelled = (await request('POST', '/v1/bookings', { product_id: p, start_time: '2027-04-01T14:00:00Z', end_time: '2027-04-02T10:00:00Z' })).json();
    const read = await request('GET', `/v1/bookings/${String(cancelled._id)}`);
    expect((await request('PATCH', `/v1/bookings/${String(cancelled._id)}`, { status: 'cancelled' }, { 'if-match': String(read.headers.etag) })).statusCode).toBe(200);
    expectProblem(await request('GET', `/v1/products/${p}/calendar-feed`), 404, 'not_found');
    const created = await request('POST', `/v1/products/${p}/calendar-feed`);
    expect(created.statusCode, created.body).toBe(201);
    const { url } = created.json() as { url: string };
    expect(url).toMatch(/^http:\/\/api\.test\/v1\/calendars\/[A-Za-z0-9_-]{43}\.ics$/);
    expect((await request('GET', `/v1/products/${p}/calendar-feed`)).json().url).toBe(url);
    const path = new URL(url).pathname;
    const exported = await h.request({ method: 'GET', url: path });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = exported.body;

    expect(text).toContain('\r\n');
    expect(text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    expect(text).toContain(`UID:${String(booked._id)}@api.test`);
    expect(text).toContain('DTSTART:20270301T140000Z');
    expect(text).toContain('SUMMARY:Booked (2 units)');
    expect(text).not.toMatch(/Quintela|912 345|REF-ZQX/);
    const tombstone = text.slice(text.indexOf(`UID:${String(cancelled._id)}`));
    expect(tombstone.slice(0, tombstone.indexOf('END:VEVENT'))).toContain('STATUS:CANCELLED');
    expect((await h.request({ method: 'GET', url: path, headers: { 'if-none-match': String(exported.headers.etag) } })).statusCode).toBe(304);
    // A channel's cache-buster changes nothing.
    expect((await h.request({ method: 'GET', url: `${path}?t=${Date.now()}` })).body).toBe(text);
    const rotated = (await request('POST', `/v1/products/${p}/calendar-feed`)).json() as { url: string };
    expect(rotated.url).not.toBe(url);
    expectProblem(await h.request({ method: 'GET', url: path }), 404, 'not_found');
    expect((await h.request({ method: 'GET', url: new URL(rotated.url).pathname })).statusCode).toBe(200);
  });

  it('imports a feed: new events block, moved ones move, vanished ones are cancelled; blocks change only through the feed', async () => {
    const p = await product(1);
    feeds.set('/airbnb.ics', { body: feed(allDay('a1@airbnb.com', '20270510', '20270513'), allDay('a2@airbnb.com', '20270520', '20270522')) });
    const created = await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/airbnb.ics`, name: 'Airbnb' });
    expect(created.statusCode, created.body).toBe(201);
    const imported = created.json();
    expect(imported).toMatchObject({ status: 'ok', events: 2, skipped: 0, conflicts: [], last_error: null, units: 1, product_id: p });
    // All-day dates are local to the product (Lisbon, UTC+1 in summer).
    expect(await blocks(p)).toEqual([
      { uid: 'a1@airbnb.com', start: '2027-05-09T23:00:00.000Z', status: 'active' },
      { uid: 'a2@airbnb.com', start: '2027-05-19T23:00:00.000Z', status: 'active' },
    ]);
    expectProblem(await request('POST', '/v1/bookings', { product_id: p, start_time: '2027-05-11T10:00:00Z', end_time: '2027-05-11T12:00:00Z' }), 409, 'capacity_exceeded');
    const block = (await h.database.db.selectFrom('bookings').select('_id').where('external_uid', '=', 'a1@airbnb.com').executeTakeFirstOrThrow())._id;
    const read = await request('GET', `/v1/bookings/${String(block)}`);
    expect(read.json()).toMatchObject({ source: 'calendar', calendar_import_id: imported._id });
    expectProblem(await request('PATCH', `/v1/bookings/${String(block)}`, { status: 'cancelled' }, { 'if-match': String(read.headers.etag) }), 409, 'managed_by_calendar');
    feeds.set('/airbnb.ics', { body: feed(allDay('a1@airbnb.com', '20270511', '20270514'), allDay('a3@airbnb.com', '20270601', '20270603')) });
    const synced = await request('POST', `/v1/products/${p}/calendar-imports/${String(imported._id)}/sync`);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ events: 2, status: 'ok' });
    expect(await blocks(p)).toEqual([
      { uid: 'a1@airbnb.com', start: '2027-05-10T23:00:00.000Z', status: 'active' },
      { uid: 'a2@airbnb.com', start: '2027-05-19T23:00:00.000Z', status: 'cancelled' },
      { uid: 'a3@airbnb.com', start: '2027-05-31T23:00:00.000Z', status: 'active' },
    ]);
    const audit = await h.database.db.selectFrom('audit_logs').select(['actor_type']).where('resource', '=', 'bookings').where('record_id', '=', String(block)).execute();
    expect(audit.every((entry) => entry.actor_type === 'system')).toBe(true);
    const etag = String((await request('GET', `/v1/products/${p}/calendar-imports/${String(imported._id)}`)).headers.etag);
    expect((await request('DELETE', `/v1/products/${p}/calendar-imports/${String(imported._id)}`, undefined, { 'if-match': etag })).statusCode).toBe(204);
    expect((await blocks(p)).every((b) => b.status === 'cancelled')).toBe(true);
    // A cancelled block holds nothing: deleting it tidies up, so the product can go too.
    const cancelledBlock = await request('GET', `/v1/bookings/${String(block)}`);
    expect((await request('DELETE', `/v1/bookings/${String(block)}`, undefined, { 'if-match': String(cancelledBlock.headers.etag) })).statusCode).toBe(204);
  });

  it('records an event that does not fit as a conflict, announced once, and never forces it in', async () => {
    const p = await product(1);
    expect((await request('POST', '/v1/bookings', { product_id: p, start_time: '2027-07-02T12:00:00Z', end_time: '2027-07-03T12:00:00Z' })).statusCode).toBe(201);
    feeds.set('/booking.ics', { body: feed(allDay('b1@booking.com', '20270701', '20270704'), allDay('b2@booking.com', '20270710', '20270711')) });
    const created = (await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/booking.ics`, name: 'Booking.com' })).json();
    expect(created).toMatchObject({ events: 1, conflicts: [{ external_uid: 'b1@booking.com', available: 0 }] });
    await request('POST', `/v1/products/${p}/calendar-imports/${String(created._id)}/sync`);
    const announced = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', String(created._id)).where('type', '=', 'calendars.conflict').execute();
    expect(announced).toHaveLength(1);
    expect(await blocks(p)).toEqual([{ uid: 'b2@booking.com', start: '2027-07-09T23:00:00.000Z', status: 'active' }]);
  });

  it('a broken feed fails clearly and changes no block; a malformed event is skipped and counted', async () => {
    const p = await product(2);
    feeds.set('/good.ics', { body: feed(allDay('g1@x', '20270801', '20270803'), ['BEGIN:VEVENT', 'UID:broken@x', 'DTSTART:20270805T100000Z', 'DTEND:20270805T090000Z', 'END:VEVENT'].join('\r\n')) });
    const created = (await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/good.ics` })).json();
    expect(created).toMatchObject({ status: 'ok', events: 1, skipped: 1 });
    const before = await blocks(p);
    const sync = async () => (await request('POST', `/v1/products/${p}/calendar-imports/${String(created._id)}/sync`)).json();
    const faults: [string, Parameters<FeedServer['set']>[1], RegExp][] = [
      ['500', { status: 500, body: 'oops' }, /HTTP 500/],
      ['html', { headers: { 'content-type': 'text/html' }, body: '<html><body>Sign in</body></html>' }, /not an iCalendar/],
      ['garbage', { body: 'BEGIN:VCALENDAR\r\nthis is : not ; ical\r\n' }, /could not be parsed|not an iCalendar/],
      ['huge', { body: `BEGIN:VCALENDAR\r\n${'X-FILLER:'.padEnd(1000, 'x')}\r\n`.repeat(6 * 1024) }, /larger than 5 MB/],
      ['loop', (_request, response) => void response.writeHead(302, { location: '/good.ics-loop' }).end(), /redirects/],
    ];
    feeds.set('/good.ics-loop', (_request, response) => void response.writeHead(302, { location: '/good.ics' }).end());
    for (const [name, route, error] of faults) {
      feeds.set('/good.ics', route);
      const after = await sync();
      expect({ name, status: after.status, error: after.last_error }).toMatchObject({ name, status: 'failing', error: expect.stringMatching(error) });
      expect(await blocks(p), name).toEqual(before);
    }
  });

  it('refuses addresses the outgoing guard forbids, and turns stale once, after 3 intervals without success', async () => {
    const p = await product(1);
    expectProblem(await request('POST', `/v1/products/${p}/calendar-imports`, { url: 'http://10.0.0.1/feed.ics' }), 400, 'validation_failed');
    feeds.set('/flaky.ics', { body: feed(allDay('f1@x', '20270901', '20270902')) });
    const created = (await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/flaky.ics` })).json();
    feeds.set('/flaky.ics', { status: 503 });
    offset += 10 * 60_000;
    const sync = async () => (await request('POST', `/v1/products/${p}/calendar-imports/${String(created._id)}/sync`)).json();
    expect(await sync()).toMatchObject({ status: 'failing' });
    offset += 3 * 900_000;
    expect(await sync()).toMatchObject({ status: 'stale', stale_since: expect.any(String) });
    expect(await sync()).toMatchObject({ status: 'stale' });
    const stale = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', String(created._id)).where('type', '=', 'calendars.stale').execute();
    expect(stale).toHaveLength(1);
    expect(await blocks(p)).toEqual([{ uid: 'f1@x', start: '2027-08-31T23:00:00.000Z', status: 'active' }]);
    // The operator sees syncs, failures and conflicts (docs/calendars.md "Health").
    const metrics = (await h.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/calendar_syncs_total\{outcome="applied"\} [1-9]/);
    expect(metrics).toMatch(/calendar_syncs_total\{outcome="failed"\} [1-9]/);
    expect(metrics).toMatch(/calendar_conflicts_total \d/);
  });

  it('keeps a block whose event the channel dropped once it is past: history is not a vanished event', async () => {
    const p = await product(1);
    const soon = new Date(clock.now() + 2 * 86_400_000);
    const date = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
    const after = new Date(soon.getTime() + 86_400_000);
    feeds.set('/past.ics', { body: feed(allDay('past@x', date(soon), date(after))) });
    const created = (await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/past.ics` })).json();
    expect(created).toMatchObject({ events: 1 });
    // Forty days on, the channel's feed no longer lists the stay.
    offset += 40 * 86_400_000;
    feeds.set('/past.ics', { body: feed() });
    // The schedule's sync (the test's token has expired by now).
    expect(await h.app.calendars.sync.sync(String(created._id))).toBe(true);
    const synced = await h.database.db.selectFrom('calendar_imports').select(['status']).where('_id', '=', String(created._id)).executeTakeFirstOrThrow();
    expect(synced.status).toBe('ok');
    expect((await blocks(p)).map((b) => b.status)).toEqual(['active']);
  });

  it("exports an order's hold while it lasts, then as a cancellation with a higher SEQUENCE", async () => {
    const seller = await h.token(await h.client(await h.tenant('Seller'), [...crud('products'), 'orders:create']), undefined, clock.now());
    const p = String(
      (await h.request({ method: 'POST', url: '/v1/products', token: seller, body: { name: 'Sold', address: 'A 1', city: 'Faro', zip_code: '8000', total_items: 1, price: 90 } })).json()._id,
    );
    const start = new Date(clock.now() + 10 * 86_400_000).toISOString();
    const end = new Date(clock.now() + 12 * 86_400_000).toISOString();
    const order = (await h.request({ method: 'POST', url: '/v1/orders', token: seller, body: { product_id: p, start_time: start, end_time: end, hold_seconds: 60 } })).json();
    const { url } = (await h.request({ method: 'POST', url: `/v1/products/${p}/calendar-feed`, token: seller })).json() as { url: string };
    const eventOf = (text: string) => {
      const from = text.indexOf(`UID:${String(order.booking_id)}@api.test`);
      return from < 0 ? '' : text.slice(from, text.indexOf('END:VEVENT', from));
    };
    const held = eventOf((await h.request({ method: 'GET', url: new URL(url).pathname })).body);
    expect(held).toContain('SUMMARY:Booked');
    expect(held).not.toContain('STATUS:CANCELLED');
    offset += 61_000;
    const lapsed = eventOf((await h.request({ method: 'GET', url: new URL(url).pathname })).body);
    expect(lapsed).toContain('STATUS:CANCELLED');
    const sequence = (event: string) => Number(/SEQUENCE:(\d+)/.exec(event)?.[1]);
    expect(sequence(lapsed)).toBeGreaterThan(sequence(held));
  });

  it('syncs on schedule the imports whose last sync is an interval old, and only those', async () => {
    const p = await product(1);
    feeds.set('/scheduled.ics', { body: feed(allDay('s1@x', '20271001', '20271002')) });
    const created = (await request('POST', `/v1/products/${p}/calendar-imports`, { url: `${feeds.origin}/scheduled.ics` })).json();
    const hits = feeds.hits('/scheduled.ics');
    await syncDueImports(h.database, clock, h.app.calendars.sync, 900);
    expect(feeds.hits('/scheduled.ics')).toBe(hits);
    offset += 901_000;
    await syncDueImports(h.database, clock, h.app.calendars.sync, 900);
    expect(feeds.hits('/scheduled.ics')).toBe(hits + 1);
    const row = await h.database.db.selectFrom('calendar_imports').select('last_synced_at').where('_id', '=', String(created._id)).executeTakeFirstOrThrow();
    expect(Date.parse(String(h.database.dialect.fromDb('timestamp', row.last_synced_at)))).toBeGreaterThan(Date.parse(String(created.last_synced_at)));
  });
});
