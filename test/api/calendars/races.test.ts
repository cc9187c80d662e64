import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarApi, peakUnits } from '../../support/calendar-imports.js';
import type { CalendarApi } from '../../support/calendar-imports.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedServer } from '../../support/feed-server.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { secondInstance } from '../../support/second-instance.js';
import type { Instance } from '../../support/second-instance.js';

const hourMs = 3_600_000;

/** A calendar of timed events `[start, end)` (epoch ms), UTC, as a channel writes it. */
function calendar(events: readonly (readonly [uid: string, start: number, end: number])[]): string {
  const utc = (ms: number) => `${new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
  const lines = events.flatMap(([uid, start, end]) => ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART:${utc(start)}`, `DTEND:${utc(end)}`, 'SUMMARY:Reserved', 'END:VEVENT']);
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Races//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

/*
 * Syncs racing the API and each other (docs/calendars.md "Import"): a sync takes the
 * import's, its blocks' and the product's locks, as a booking takes the product's, so the
 * units held never exceed the product's at any instant, whatever interleaves; each conflict
 * is announced once however many syncs see it; and two syncs of one import at once leave one
 * block per event. On PostgreSQL the requests go to two instances of the service on the same
 * database (each its own pool); on SQLite to one, the only one a SQLite file has (a server
 * holds its data directory's lock, docs/operations.md), where they interleave at every await.
 */
describe.each(dialects)('calendar races on %s', (dialect) => {
  let h: Harness;
  let second: Instance | undefined;
  let api: CalendarApi;
  let token: string;
  let feeds: FeedServer;
  const base = Math.ceil(Date.now() / hourMs) * hourMs + 5 * 24 * hourMs;

  beforeAll(async () => {
    feeds = await startFeedServer();
    const postgresUrl = dialect === 'postgres' ? await freshPostgresUrl({ migrated: true }) : undefined;
    h = await createHarness(dialect, {
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', CALENDAR_SYNC_SECONDS: '900', ACCESS_TOKEN_TTL_SECONDS: '86400' },
      ...(postgresUrl ? { database: { postgresUrl } } : {}),
    });
    if (postgresUrl) second = await secondInstance(h, postgresUrl);
    token = await h.bearer(await h.tenant('Races'), [...crud('products'), ...crud('bookings')]);
    api = calendarApi(h.request, h.database, token);
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
    await feeds?.close();
  });

  /** Instance `i % 2` on PostgreSQL (the harness's or the second one); the harness's on SQLite. */
  const on = (i: number) => calendarApi(i % 2 === 1 && second ? second.request : h.request, h.database, token);

  /** Creates an import of an empty feed at `path` (its first sync holds nothing). */
  async function emptyImport(productId: string, path: string): Promise<string> {
    feeds.set(path, { body: calendar([]) });
    const created = await api.createImport(productId, `${feeds.origin}${path}`);
    expect(created.json()).toMatchObject({ status: 'ok', events: 0 });
    return String(created.json()._id);
  }

  it('never holds more units than the product has while syncs race 30 parallel bookings, and announces each conflict once', async () => {
    const units = 3;
    const productId = await api.product(units, 'UTC');
    const importId = await emptyImport(productId, '/race.ics');
    // 12 events of 2 days, one every 6 hours: up to 8 overlap; 30 bookings of a day, one
    // every 4 hours, over the same days: capacity binds most of the time.
    const events = Array.from({ length: 12 }, (_, i) => [`race-${i}@channel`, base + i * 6 * hourMs, base + i * 6 * hourMs + 48 * hourMs] as const);
    feeds.set('/race.ics', { body: calendar(events) });
    const book = (i: number) =>
      on(i).send('POST', '/v1/bookings', {
        product_id: productId,
        quantity: 1,
        start_time: new Date(base + i * 4 * hourMs).toISOString(),
        end_time: new Date(base + i * 4 * hourMs + 24 * hourMs).toISOString(),
      });
    const answers = await Promise.all([
      on(0).sync(productId, importId),
      ...Array.from({ length: 15 }, (_, i) => book(i)),
      on(1).sync(productId, importId),
      ...Array.from({ length: 15 }, (_, i) => book(15 + i)),
      on(0).sync(productId, importId),
    ]);
    const [syncs, bookings] = [
      [answers[0], answers[16], answers[32]],
      [...answers.slice(1, 16), ...answers.slice(17, 32)],
    ];
    for (const sync of syncs) expect(sync?.statusCode, sync?.body).toBe(200);
    for (const booking of bookings) expect([201, 409], booking.body).toContain(booking.statusCode);

    const rows = await api.bookings(productId);
    expect(peakUnits(rows)).toBeLessThanOrEqual(units);
    // What the answers said is what the database holds.
    const booked = bookings.filter((b) => b.statusCode === 201).map((b) => String(b.json()._id));
    expect(rows.filter((r) => r.source === 'api' && r.status === 'active').map((r) => r.id)).toEqual(booked.sort());
    // Every event is a block or a conflict, never both, never twice.
    const read = (await api.send('GET', `/v1/products/${productId}/calendar-imports/${importId}`)).json();
    const conflicted = (read.conflicts as { external_uid: string }[]).map((c) => c.external_uid).sort();
    const blocked = (await api.blocks(importId)).map((b) => b.uid).sort();
    expect([...blocked, ...conflicted].sort()).toEqual(events.map(([uid]) => uid).sort());
    expect(rows.filter((r) => r.source === 'calendar').length).toBe(blocked.length);
    // The race was a real one: capacity refused both sides.
    expect([conflicted.length > 0, booked.length > 0, booked.length < bookings.length]).toEqual([true, true, true]);

    // Synced again and again (on both instances), the conflicts stand and each is announced once.
    for (let i = 0; i < 4; i += 1) expect((await on(i).sync(productId, importId)).json()).toMatchObject({ status: 'ok', conflicts: read.conflicts });
    const announced = (await api.announced(importId, 'calendars.conflict')).map((event) => String(event.external_uid)).sort();
    expect(announced).toEqual(conflicted);
    expect(peakUnits(await api.bookings(productId))).toBeLessThanOrEqual(units);
  });

  it('leaves exactly one block per event when several syncs of one import run at once, and announces a conflict once', async () => {
    const productId = await api.product(2, 'UTC');
    // One booking holds both units on day 30: the event there cannot fit.
    const full = await api.send('POST', '/v1/bookings', {
      product_id: productId,
      quantity: 2,
      start_time: new Date(base + 30 * 24 * hourMs).toISOString(),
      end_time: new Date(base + 31 * 24 * hourMs).toISOString(),
    });
    expect(full.statusCode, full.body).toBe(201);
    const importId = await emptyImport(productId, '/twice.ics');
    for (const [round, shift] of [0, 2, 5].entries()) {
      // 40 one-day events, a day apart (moved by `shift` hours each round), and one on the full day.
      const events: (readonly [string, number, number])[] = Array.from(
        { length: 40 },
        (_, i) => [`twice-${i}@channel`, base + (i * 24 + shift) * hourMs, base + (i * 24 + shift + 20) * hourMs] as const,
      ).filter(([, start, end]) => end <= base + 30 * 24 * hourMs || start >= base + 31 * 24 * hourMs);
      events.push(['twice-full@channel', base + 30 * 24 * hourMs + hourMs, base + 30 * 24 * hourMs + 5 * hourMs]);
      feeds.set('/twice.ics', { body: calendar(events) });
      const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => on(i).sync(productId, importId)));
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const rows = (await api.bookings(productId)).filter((r) => r.source === 'calendar');
      // One row per event ever seen, whatever the round: moves change rows, never add them.
      const uids = rows.map((r) => r.uid);
      expect(new Set(uids).size, `round ${round}`).toBe(uids.length);
      const blocks = await api.blocks(importId);
      expect(blocks.map((b) => b.uid).sort(), `round ${round}`).toEqual(
        events
          .filter(([uid]) => uid !== 'twice-full@channel')
          .map(([uid]) => uid)
          .sort(),
      );
      for (const block of blocks) {
        const event = events.find(([uid]) => uid === block.uid);
        expect([Date.parse(block.start), Date.parse(block.end)]).toEqual([event?.[1], event?.[2]]);
      }
      expect((await api.announced(importId, 'calendars.conflict')).map((event) => event.external_uid)).toEqual(['twice-full@channel']);
      expect(peakUnits(await api.bookings(productId))).toBeLessThanOrEqual(2);
    }
  });
});
