import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CalendarSync } from '../../../src/calendars/import-sync.js';
import type { Clock } from '../../../src/core/clock.js';
import { AddressGuard } from '../../../src/lib/address-guard.js';
import { calendarApi } from '../../support/calendar-imports.js';
import type { CalendarApi, StoredBlock } from '../../support/calendar-imports.js';
import { icsDate } from '../../support/channel-feeds.js';
import { dialects } from '../../support/databases.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedRoute, FeedServer } from '../../support/feed-server.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const dayMs = 86_400_000;

/** A calendar of `events` (VEVENT text), as a channel writes it. */
function calendar(...events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Faults//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}
const vevent = (...lines: string[]) => ['BEGIN:VEVENT', ...lines, 'END:VEVENT'].join('\r\n');
/** An all-day event `days` to `days + nights` from today (UTC dates), read in the product's zone. */
const stay = (uid: string, days: number, nights: number) => {
  const today = Date.now() - (Date.now() % dayMs);
  return vevent(`UID:${uid}`, `DTSTART;VALUE=DATE:${icsDate(today + days * dayMs)}`, `DTEND;VALUE=DATE:${icsDate(today + (days + nights) * dayMs)}`, 'SUMMARY:Reserved');
};

/**
 * Streams `bytes` (Infinity: without end) of a calendar-looking body in 64 KB chunks, no
 * Content-Length, heeding back-pressure; `seen` says how much was written and whether the
 * client hung up before the end.
 */
function streamed(bytes: number, seen: { written: number; cutOff: boolean }): FeedRoute {
  return (_request, response: ServerResponse) => {
    seen.written = 0;
    seen.cutOff = false;
    let ended = false;
    response.on('close', () => void (seen.cutOff = !ended));
    response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
    response.write('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n');
    const chunk = Buffer.from(`${'X-FILLER:'.padEnd(1022, 'x')}\r\n`.repeat(64));
    const more = () => {
      while (seen.written < bytes && !response.destroyed) {
        seen.written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      ended = !response.destroyed;
      if (ended) response.end('END:VCALENDAR\r\n');
    };
    more();
  };
}

/*
 * A channel's feed going wrong (docs/calendars.md "Import"): each fault ends in `failing` with
 * a last_error that says what happened (or, for malformed events inside a good feed, the
 * feed applied with those events skipped and counted), no block changed, and no 500 on any
 * request. Faults calendars.test.ts already covers (HTTP 500, text/html, unparsable text, a
 * 6 MB body with a Content-Length, a redirect loop, a private import URL) are not repeated.
 */
describe.each(dialects)('feed faults on %s', (dialect) => {
  let h: Harness;
  let api: CalendarApi;
  let feeds: FeedServer;
  const clock: Clock = { now: () => Date.now() };
  const good = () => calendar(stay('held-1@channel', 5, 3), stay('held-2@channel', 12, 2));

  beforeAll(async () => {
    feeds = await startFeedServer();
    h = await createHarness(dialect, { clock, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', CALENDAR_SYNC_SECONDS: '900', ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    api = calendarApi(h.request, h.database, await h.bearer(await h.tenant('Faults'), [...crud('products'), ...crud('bookings')]));
  });
  afterAll(async () => {
    await h?.close();
    await feeds?.close();
  });

  /** A product importing `path` (serving the good feed for the first sync): its ids and blocks. */
  async function importing(path: string): Promise<{ productId: string; importId: string; before: StoredBlock[] }> {
    const productId = await api.product(1);
    feeds.set(path, { body: good() });
    const created = await api.createImport(productId, `${feeds.origin}${path}`);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'ok', events: 2 });
    const importId = String(created.json()._id);
    const before = await api.blocks(importId);
    expect(before.map((b) => b.uid)).toEqual(['held-1@channel', 'held-2@channel']);
    return { productId, importId, before };
  }
  const readImport = async (productId: string, importId: string) => {
    const read = await api.send('GET', `/v1/products/${productId}/calendar-imports/${importId}`);
    expect(read.statusCode, read.body).toBe(200);
    return read.json() as Record<string, unknown>;
  };

  describe('a feed that does not answer in time', () => {
    // The service's CalendarSync waits 10 s (CalendarSyncSettings.timeoutMs unset: the
    // container passes none); this one, on the same database, waits 300 ms.
    let sync: CalendarSync;
    beforeEach(() => {
      sync = new CalendarSync(h.database, clock, { guard: new AddressGuard(['127.0.0.1/32']), allowHttp: true, intervalSeconds: 900, timeoutMs: 300 });
    });

    it.each([
      ['accepts the connection and never answers', /^no answer within 300 ms$/, (): FeedRoute => () => undefined],
      [
        'sends its headers and the first line, then nothing',
        /^the feed did not finish in time$/,
        (): FeedRoute => (_request, response) => void response.writeHead(200, { 'content-type': 'text/calendar' }).write('BEGIN:VCALENDAR\r\n'),
      ],
    ])('%s: failing after the time limit, no block changed', async (_name, error, route) => {
      const path = `/slow-${Math.random().toString(36).slice(2)}.ics`;
      const { productId, importId, before } = await importing(path);
      feeds.set(path, route());
      const started = Date.now();
      expect(await sync.sync(importId)).toBe(true);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(5_000);
      expect(await readImport(productId, importId)).toMatchObject({ status: 'failing', last_error: expect.stringMatching(error), events: 2 });
      expect(await api.blocks(importId)).toEqual(before);
      // The channel recovers: the next sync applies the same feed, still the same blocks.
      feeds.set(path, { body: good() });
      expect(await sync.sync(importId)).toBe(true);
      expect(await readImport(productId, importId)).toMatchObject({ status: 'ok', last_error: null });
      expect(await api.blocks(importId)).toEqual(before);
    });
  });

  it('fails each fault of the channel clearly, changes no block, and never answers 500', async () => {
    const path = '/faulty.ics';
    const { productId, importId, before } = await importing(path);
    const closedPort = await freePort();
    const big = { written: 0, cutOff: false };
    const endless = { written: 0, cutOff: false };
    const redirect =
      (location: string): FeedRoute =>
      (_request, response) =>
        void response.writeHead(302, { location }).end();
    // Four hops: /faulty.ics → /hop-3 → /hop-2 → /hop-1 → the feed (three are allowed).
    feeds.set('/hop-3', redirect('/hop-2'));
    feeds.set('/hop-2', redirect('/hop-1'));
    feeds.set('/hop-1', redirect('/hop-target.ics'));
    feeds.set('/hop-target.ics', { body: good() });
    const faults: [name: string, route: FeedRoute, error: RegExp][] = [
      ['a 6 MB body streamed without Content-Length', streamed(6 * 1024 * 1024, big), /^the feed is larger than 5 MB$/],
      ['a body that never ends', streamed(Infinity, endless), /^the feed is larger than 5 MB$/],
      [
        'an HTML sign-in page served as text/calendar',
        { body: '<!DOCTYPE html>\n<html lang="en"><head><title>Sign in</title></head><body><form action="/login">BEGIN:VCALENDAR</form></body></html>' },
        /^the body is not an iCalendar VCALENDAR$/,
      ],
      ['an empty 200', { body: '' }, /^the body is not an iCalendar VCALENDAR$/],
      ['a redirect chain of 4', redirect('/hop-3'), /^more than 3 redirects$/],
      ['a redirect to a private address outside the allowed networks', redirect('http://10.1.2.3/calendar.ics'), /^EADDRNOTALLOWED: 10\.1\.2\.3 is an address imports may not reach$/],
      ['a redirect to the cloud metadata address', redirect('http://169.254.169.254/latest/meta-data/'), /^EADDRNOTALLOWED: 169\.254\.169\.254 /],
      ['a redirect to a private address spelt as an IPv4-mapped IPv6 literal', redirect('http://[::ffff:10.1.2.3]/x.ics'), /^EADDRNOTALLOWED: ::ffff:a01:203 /],
      ['a redirect to a private address spelt in hex', redirect('http://0x0a010203/x.ics'), /^EADDRNOTALLOWED: 10\.1\.2\.3 /],
      ['a redirect to a loopback address outside the allowed network', redirect('http://127.0.0.2/x.ics'), /^EADDRNOTALLOWED: 127\.0\.0\.2 /],
      ['a redirect to a file: URL', redirect('file:///etc/passwd'), /^file: URLs are not fetched/],
      ['a redirect without a Location', (_request, response) => void response.writeHead(302).end(), /^the feed answered HTTP 302$/],
      ['a redirect to a port nobody listens on', redirect(`http://127.0.0.1:${closedPort}/x.ics`), /^ECONNREFUSED: /],
      ['a 404', { status: 404, body: 'gone' }, /^the feed answered HTTP 404$/],
      [
        'a connection cut in the middle of the body',
        (request, response) => void response.writeHead(200).write('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n', () => request.socket.destroy()),
        /^the feed broke off: /,
      ],
      ['a line that is not a property', { body: calendar(stay('held-1@channel', 5, 3), 'this line has no colon', stay('held-2@channel', 12, 2)) }, /^the feed could not be parsed: invalid line/],
      ['an event left open', { body: good().replace(/END:VEVENT\r\nEND:VCALENDAR/, 'END:VCALENDAR') }, /^the feed could not be parsed: /],
      // One event's RRULE the parser does not know fails the whole feed: failing, not half applied.
      [
        'an RRULE with an unknown frequency',
        { body: calendar(stay('held-1@channel', 5, 3), vevent('UID:odd@channel', 'DTSTART:20300101T100000Z', 'DTEND:20300101T110000Z', 'RRULE:FREQ=SOMETIMES')) },
        /^the feed could not be parsed: invalid frequency/,
      ],
    ];
    for (const [name, route, error] of faults) {
      feeds.set(path, route);
      const synced = await api.sync(productId, importId);
      expect(synced.statusCode, `${name}: ${synced.body}`).toBe(200);
      expect({ name, status: synced.json().status, error: synced.json().last_error }).toEqual({ name, status: 'failing', error: expect.stringMatching(error) });
      expect(synced.json().last_error.length, name).toBeLessThanOrEqual(500);
      expect(await api.blocks(importId), name).toEqual(before);
    }
    // The endless body was cut off: the service hung up a few MB in (what loopback buffers
    // past the 5 MB it read), instead of reading on.
    expect(big.written).toBe(6 * 1024 * 1024);
    expect(endless.cutOff).toBe(true);
    expect(endless.written).toBeLessThan(64 * 1024 * 1024);
    // The fourth hop was never followed.
    expect(feeds.hits('/hop-1')).toBe(1);
    expect(feeds.hits('/hop-target.ics')).toBe(0);
    // Three hops are allowed: the same chain from its second link applies the feed.
    feeds.set(path, redirect('/hop-2'));
    expect((await api.sync(productId, importId)).json()).toMatchObject({ status: 'ok', last_error: null, events: 2 });
    expect(feeds.hits('/hop-target.ics')).toBe(1);
    expect(await api.blocks(importId)).toEqual(before);
  });

  it('answers 201 with the failure when the first sync of a new import fails, and holds no block', async () => {
    const productId = await api.product(1);
    feeds.set('/sign-in.ics', { body: '<html><body>Please sign in</body></html>' });
    const created = await api.createImport(productId, `${feeds.origin}/sign-in.ics`);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'failing', last_error: 'the body is not an iCalendar VCALENDAR', events: 0, last_success_at: null });
    expect(await api.blocks(String(created.json()._id))).toEqual([]);
  });

  it('skips and counts malformed events inside a good feed, applies the rest, and leaves the block of an event that turned malformed as it was', async () => {
    const path = '/malformed.ics';
    const { productId, importId, before } = await importing(path);
    const today = Date.now() - (Date.now() % dayMs);
    const day = (n: number) => icsDate(today + n * dayMs);
    feeds.set(path, {
      body: calendar(
        // held-1 moved a day later; held-2 is now broken (ends before it starts); new-1 is new.
        stay('held-1@channel', 6, 3),
        vevent('UID:held-2@channel', `DTSTART;VALUE=DATE:${day(14)}`, `DTEND;VALUE=DATE:${day(12)}`, 'SUMMARY:Reserved'),
        stay('new-1@channel', 20, 2),
        vevent(`DTSTART;VALUE=DATE:${day(30)}`, `DTEND;VALUE=DATE:${day(31)}`, 'SUMMARY:no UID'),
        vevent('UID:no-start@channel', `DTEND;VALUE=DATE:${day(31)}`),
        vevent('UID:bad-date@channel', 'DTSTART;VALUE=DATE:2027XX01', `DTEND;VALUE=DATE:${day(33)}`),
        vevent('UID:bad-duration@channel', `DTSTART:${day(34)}T100000Z`, 'DURATION:PXYZ'),
        vevent('UID:negative-duration@channel', `DTSTART:${day(35)}T100000Z`, 'DURATION:-PT1H'),
        vevent('UID:empty-start@channel', 'DTSTART:', `DTEND:${day(36)}T100000Z`),
        // Longer than any booking may last (366 days): skipped when applied.
        stay('too-long@channel', 40, 400),
      ),
    });
    const synced = await api.sync(productId, importId);
    expect(synced.statusCode, synced.body).toBe(200);
    expect(synced.json()).toMatchObject({ status: 'ok', last_error: null, skipped: 8, conflicts: [], events: 3 });
    const after = await api.blocks(importId);
    const held2 = before.find((b) => b.uid === 'held-2@channel');
    expect(after.map((b) => b.uid)).toEqual(['held-1@channel', 'held-2@channel', 'new-1@channel']);
    expect(after.find((b) => b.uid === 'held-2@channel')).toEqual(held2);
    expect(Date.parse(after[0]?.start ?? '') - Date.parse(before[0]?.start ?? '')).toBe(dayMs);
    // Mended in the feed, it follows the feed again; gone from it, its block is cancelled.
    feeds.set(path, { body: calendar(stay('held-1@channel', 6, 3), stay('held-2@channel', 13, 2)) });
    expect((await api.sync(productId, importId)).json()).toMatchObject({ status: 'ok', skipped: 0, events: 2 });
    expect((await api.blocks(importId)).map((b) => [b.uid, b.start.slice(0, 10)])).toEqual([
      ['held-1@channel', new Date(Date.parse(after[0]?.start ?? '')).toISOString().slice(0, 10)],
      ['held-2@channel', new Date(Date.parse(held2?.start ?? '') + dayMs).toISOString().slice(0, 10)],
    ]);
  });

  it('reads a feed that starts with a UTF-8 byte order mark', async () => {
    const productId = await api.product(1);
    feeds.set('/bom.ics', { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good())]) });
    const created = await api.createImport(productId, `${feeds.origin}/bom.ics`);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'ok', last_error: null, events: 2, skipped: 0 });
  });
});
