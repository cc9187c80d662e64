import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarApi } from '../../support/calendar-imports.js';
import type { CalendarApi } from '../../support/calendar-imports.js';
import { dialects } from '../../support/databases.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedServer } from '../../support/feed-server.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const runs = Number(process.env['CALENDAR_ROUND_TRIP_RUNS'] ?? 20);
const seed = Number(process.env['CALENDAR_ROUND_TRIP_SEED'] ?? 20261206);
const hourMs = 3_600_000;

/** What a test does to product A between two exports: book one unit, cancel a booking, or move one. */
type Op =
  | { readonly kind: 'book'; readonly hour: number; readonly hours: number }
  | { readonly kind: 'cancel'; readonly pick: number }
  | { readonly kind: 'move'; readonly pick: number; readonly hour: number; readonly hours: number };

// Stays of 1 hour to 3 days starting within the next ~10 days (whole quarter hours), so
// with 1 to 3 units capacity binds often: some bookings and moves are refused.
const when = { hour: fc.integer({ min: 0, max: 240 * 4 }).map((q) => q / 4), hours: fc.integer({ min: 1, max: 72 }) };
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('book' as const), ...when }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), ...when }) },
);

/*
 * Export and import round trip (docs/calendars.md): quantity-1 bookings of a product with k
 * units, some cancelled and moved, are exported as its feed; a second product with the same
 * k and zone imports that feed. Its blocks must be exactly the first product's bookings that
 * hold units (one block per booking, same interval, the booking's id in the UID), with no
 * conflict; then after more bookings, cancellations and moves, a sync of the same import
 * must follow them exactly again.
 */
describe.each(dialects)('calendar round trip on %s', (dialect) => {
  let h: Harness;
  let api: CalendarApi;
  let feeds: FeedServer;
  let run = 0;

  beforeAll(async () => {
    feeds = await startFeedServer();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', CALENDAR_SYNC_SECONDS: '900', ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    api = calendarApi(h.request, h.database, await h.bearer(await h.tenant('Round trip'), [...crud('products'), ...crud('bookings')]));
  });
  afterAll(async () => {
    await h?.close();
    await feeds?.close();
  });

  /** Applies `ops` to product A through the API; 409s (no free unit) are part of the game. */
  async function apply(productId: string, ops: readonly Op[], base: number): Promise<void> {
    const interval = (hour: number, hours: number) => ({ start_time: new Date(base + hour * hourMs).toISOString(), end_time: new Date(base + (hour + hours) * hourMs).toISOString() });
    for (const step of ops) {
      if (step.kind === 'book') {
        const booked = await api.send('POST', '/v1/bookings', { product_id: productId, quantity: 1, ...interval(step.hour, step.hours) });
        expect([201, 409], booked.body).toContain(booked.statusCode);
        continue;
      }
      const active = (await api.bookings(productId)).filter((b) => b.status === 'active');
      const target = active[step.pick % Math.max(1, active.length)];
      if (!target) continue;
      const changes = step.kind === 'cancel' ? { status: 'cancelled' } : interval(step.hour, step.hours);
      const changed = await api.send('PATCH', `/v1/bookings/${target.id}`, changes, { 'if-match': target.etag });
      expect([200, 409], changed.body).toContain(changed.statusCode);
    }
  }

  /** A's feed, as the public route serves it. */
  async function exported(feedPath: string): Promise<string> {
    const answer = await h.request({ method: 'GET', url: feedPath });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.body;
  }

  /** B's blocks must be A's holding bookings, one for one. */
  async function expectSameHoldings(a: string, importId: string): Promise<void> {
    const holding = (await api.bookings(a))
      .filter((b) => b.status === 'active')
      .map((b) => ({ uid: `${b.id}@api.test`, start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString() }))
      .sort((x, y) => x.start.localeCompare(y.start) || x.uid.localeCompare(y.uid));
    expect(await api.blocks(importId)).toEqual(holding);
  }

  it('follows bookings that moved along a chain and a new one booked in the place the first moved out of', async () => {
    // One unit: X at 10 h, Z at 20 h. Then Z moves to 30 h, X into Z's old place, and Y is
    // booked where X was. Applied in start order against the blocks as they stand, Y (10 h)
    // would meet X's old block and X (20 h) Z's: a sync must free places before it fills them.
    const base = Math.ceil(Date.now() / hourMs) * hourMs + 24 * hourMs;
    const a = await api.product(1);
    const b = await api.product(1);
    const feedPath = new URL(String((await api.send('POST', `/v1/products/${a}/calendar-feed`)).json().url)).pathname;
    await apply(
      a,
      [
        { kind: 'book', hour: 10, hours: 2 },
        { kind: 'book', hour: 20, hours: 2 },
      ],
      base,
    );
    const [x, z] = (await api.bookings(a)).sort((p, q) => p.start - q.start);
    feeds.set('/chain.ics', { body: await exported(feedPath) });
    const importId = String((await api.createImport(b, `${feeds.origin}/chain.ics`)).json()._id);
    await expectSameHoldings(a, importId);
    const move = async (id: string, hour: number) => {
      const etag = String((await api.send('GET', `/v1/bookings/${id}`)).headers.etag);
      const moved = await api.send(
        'PATCH',
        `/v1/bookings/${id}`,
        { start_time: new Date(base + hour * hourMs).toISOString(), end_time: new Date(base + (hour + 2) * hourMs).toISOString() },
        { 'if-match': etag },
      );
      expect(moved.statusCode, moved.body).toBe(200);
    };
    await move(String(z?.id), 30);
    await move(String(x?.id), 20);
    await apply(a, [{ kind: 'book', hour: 10, hours: 2 }], base);
    expect((await api.bookings(a)).filter((row) => row.status === 'active')).toHaveLength(3);
    feeds.set('/chain.ics', { body: await exported(feedPath) });
    const synced = await api.sync(b, importId);
    expect(synced.json()).toMatchObject({ status: 'ok', events: 3, conflicts: [] });
    await expectSameHoldings(a, importId);
  });

  it(
    'reproduces the holdings of one product in another with the same units and zone, before and after changes',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 3 }),
          fc.constantFrom('Europe/Berlin', 'Europe/Lisbon', 'America/New_York', 'UTC'),
          fc.array(op, { minLength: 1, maxLength: 8 }),
          fc.array(op, { minLength: 1, maxLength: 8 }),
          async (units, zone, before, after) => {
            run += 1;
            const base = Math.ceil(Date.now() / hourMs) * hourMs + 24 * hourMs;
            const a = await api.product(units, zone);
            const b = await api.product(units, zone);
            const rotated = await api.send('POST', `/v1/products/${a}/calendar-feed`);
            expect(rotated.statusCode, rotated.body).toBe(201);
            const feedPath = new URL(String(rotated.json().url)).pathname;
            const served = `/round-trip-${run}.ics`;

            await apply(a, before, base);
            feeds.set(served, { body: await exported(feedPath) });
            const created = await api.createImport(b, `${feeds.origin}${served}`);
            expect(created.statusCode, created.body).toBe(201);
            expect(created.json()).toMatchObject({ status: 'ok', skipped: 0, conflicts: [] });
            const importId = String(created.json()._id);
            await expectSameHoldings(a, importId);

            await apply(a, after, base);
            feeds.set(served, { body: await exported(feedPath) });
            const synced = await api.sync(b, importId);
            expect(synced.statusCode, synced.body).toBe(200);
            expect(synced.json()).toMatchObject({ status: 'ok', skipped: 0, conflicts: [] });
            await expectSameHoldings(a, importId);
            expect(await api.announced(importId, 'calendars.conflict')).toEqual([]);
          },
        ),
        { numRuns: runs, seed, endOnFailure: true },
      );
    },
    Math.max(30_000, runs * 500),
  );
});
