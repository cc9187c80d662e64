/**
 * Capacity and availability against a brute-force model (./availability-model.ts) at
 * millisecond resolution, in zones whose days are 23 or 25 hours long, whose offsets are
 * not whole hours (Asia/Kolkata, Asia/Kathmandu, Pacific/Chatham), whose clocks move by half
 * an hour (Australia/Lord_Howe) or skip midnight (America/Santiago):
 * - every booking create, move, resize and reactivation is accepted exactly when the model
 *   has room, and a refusal names the model's `available` and `conflicts`;
 * - random slot queries (day and hour, dates and timestamps in any offset) answer the
 *   model's boundaries and peaks, or 400 when the model finds the range empty;
 * - random searches list exactly the products the model finds free, with its `available`,
 *   filtered, sorted, projected and paged as the list model (../query/list-model.ts) does.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { asWritten, inZone, overlapping, peakHeld, rangeText, slotsCovering, zoneBoundaries } from './availability-model.js';
import type { HeldBooking, RangeEnd, ZoneBoundaries } from './availability-model.js';
import { expectedAnswer } from '../query/list-model.js';
import type { Doc } from '../query/list-model.js';

const runs = Number(process.env['AVAILABILITY_MODEL_RUNS'] ?? 150);
const seed = Number(process.env['AVAILABILITY_MODEL_SEED'] ?? 20261129);

const day = 86_400_000;
/** Spans with clock changes: Berlin (03-31), Santiago, Lord Howe and Chatham (04-06/07); Santiago's skipped midnight (09-08). */
const windows = [
  { start: Date.parse('2030-03-29T00:00:00Z'), end: Date.parse('2030-04-08T00:00:00Z') },
  { start: Date.parse('2030-09-04T00:00:00Z'), end: Date.parse('2030-09-11T00:00:00Z') },
] as const;
const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'America/Santiago', 'Pacific/Chatham', 'UTC'] as const;

/** Each zone scanned once, with margins for ranges that start or end near a window's edge. */
const scanned = new Map<string, ZoneBoundaries>();
function boundaries(zone: string): ZoneBoundaries {
  let found = scanned.get(zone);
  if (!found) {
    const parts = windows.map((w) => zoneBoundaries(zone, w.start - 3 * day, w.end + 3 * day));
    found = { days: parts.flatMap((p) => p.days), hours: parts.flatMap((p) => p.hours), dayStart: new Map(parts.flatMap((p) => [...p.dayStart])) };
    scanned.set(zone, found);
  }
  return found;
}

/** The product fields the searches filter and sort on, with their types. */
const productFields = { city: 'string', total_items: 'integer', status: 'string', time_zone: 'string', name: 'string', created_at: 'timestamp', _id: 'string' } as const;

interface Product {
  /** The product as the API shows it. */
  record: Doc;
  readonly id: string;
  readonly zone: string;
  readonly total: number;
  readonly active: boolean;
  readonly held: HeldBooking[];
}

/** A timestamp written with one of several offsets, milliseconds included. */
function timestamp(instant: number, offsetMinutes: number): RangeEnd {
  if (offsetMinutes === 0) return { instant, text: new Date(instant).toISOString() };
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const clock = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, -1);
  return { instant, text: `${clock}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}` };
}

/** A range end inside a window: a local date or an instant. */
const rangeEnd = (window: (typeof windows)[number]) => {
  const days = Math.round((window.end - window.start) / day);
  return fc.oneof(
    fc.integer({ min: 0, max: days }).map((n): RangeEnd => ({ date: new Date(window.start + n * day).toISOString().slice(0, 10) })),
    fc.tuple(fc.integer({ min: 0, max: days * day }), fc.constantFrom(0, 0, 120, -210, 345, 780)).map(([ms, offset]) => timestamp(window.start + ms, offset)),
  );
};

/** `from` and `to` inside one window, mostly in order; reversed (a 400) one time in ten. */
const range = fc
  .tuple(
    fc.constantFrom(...windows).chain((window) => fc.tuple(rangeEnd(window), rangeEnd(window))),
    fc.integer({ min: 1, max: 10 }),
  )
  .map(([[a, b], dice]) => (asWritten(a) <= asWritten(b) === dice > 1 ? ([a, b] as const) : ([b, a] as const)));

const iso = (ms: number): string => new Date(ms).toISOString();

interface BookingPlan {
  readonly window: (typeof windows)[number];
  readonly at: number;
  readonly minutes: number;
  readonly align: 'none' | 'hour' | 'day';
}

/**
 * Where a planned booking lies: at a random millisecond, or on the product's local hour or
 * day boundaries, so that bookings touch each other and slot edges exactly.
 */
function bookingSpan(zone: ZoneBoundaries, plan: BookingPlan): [number, number] {
  const raw = Math.floor(plan.window.start + (plan.at / 1_000_000) * (plan.window.end - plan.window.start));
  if (plan.align === 'none') return [raw, raw + plan.minutes * 60_000 + (raw % 997)];
  const edges = plan.align === 'hour' ? zone.hours : zone.days;
  const first = edges.findLastIndex((edge) => edge <= raw);
  const length = plan.align === 'hour' ? Math.ceil(plan.minutes / 60) : 1 + (plan.minutes % 2);
  return [edges[first] as number, edges[first + length] as number];
}

describe.each(dialects)('availability against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let token: string;
  const products: Product[] = [];

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Zones'), [...crud('products'), ...crud('bookings')]);
    const span = {
      window: fc.constantFrom(...windows),
      at: fc.noBias(fc.integer({ min: 0, max: 1_000_000 })),
      minutes: fc.noBias(fc.integer({ min: 1, max: 1200 })),
      quantity: fc.noBias(fc.integer({ min: 1, max: 3 })),
      align: fc.constantFrom('none' as const, 'hour' as const, 'day' as const),
    };
    const plans = fc.sample(
      fc.record({
        creates: fc.array(fc.record(span), { minLength: 50, maxLength: 50 }),
        moves: fc.array(fc.record({ target: fc.nat(), ...span }), { minLength: 20, maxLength: 20 }),
      }),
      { seed, numRuns: zones.length + 1 },
    );
    for (const [index, plan] of plans.entries()) {
      // The last product shares Berlin's zone and goes into maintenance after its bookings.
      const zone = zones[index] ?? 'Europe/Berlin';
      const total = 1 + (index % 3);
      const created = await h.request({
        method: 'POST',
        url: '/v1/products/',
        token,
        body: { name: `P${index}`, address: 'A 1', city: 'Zoneville', zip_code: '1', total_items: total, time_zone: zone },
      });
      expect(created.statusCode, created.body).toBe(201);
      const product: Product = { record: created.json<Doc>(), id: created.json<{ _id: string }>()._id, zone, total, active: index < zones.length, held: [] };
      const etags = new Map<string, string>();
      /** Sends a booking write and checks it against the model: accepted when `others` leave room, else refused with the model's figures. */
      const write = async (request: { method: string; url: string; body: unknown; headers?: Record<string, string> }, booking: Omit<HeldBooking, 'id'>, others: readonly HeldBooking[]) => {
        const answer = await h.request({ ...request, token });
        const free = product.total - peakHeld(others, booking.start, booking.end);
        const fits = free >= booking.quantity;
        const what = `${request.method} ${iso(booking.start)}–${iso(booking.end)} ×${booking.quantity}: ${answer.body}`;
        expect(answer.statusCode, what).toBe(fits ? (request.method === 'POST' ? 201 : 200) : 409);
        if (fits) {
          const id = answer.json<{ _id: string }>()._id;
          etags.set(id, String(answer.headers.etag));
          return { id, ...booking };
        }
        const problem = answer.json<{ code: string; available: number; conflicts: string[] }>();
        const conflicts = overlapping(others, booking.start, booking.end).map((b) => b.id);
        expect({ code: problem.code, available: problem.available, conflicts: [...problem.conflicts].sort() }, what).toEqual({
          code: 'capacity_exceeded',
          available: Math.max(0, free),
          conflicts: conflicts.sort(),
        });
        return undefined;
      };
      for (const step of plan.creates) {
        const [start, end] = bookingSpan(boundaries(zone), step);
        const body = { product_id: product.id, start_time: iso(start), end_time: iso(end), quantity: step.quantity };
        const booking = await write({ method: 'POST', url: '/v1/bookings/', body }, { start, end, quantity: step.quantity }, product.held);
        if (booking) product.held.push(booking);
      }
      // Cancelling every fifth booking frees its units.
      const cancelled = product.held.filter((_b, i) => i % 5 === 0);
      for (const booking of cancelled) {
        const patched = await h.request({ method: 'PATCH', url: `/v1/bookings/${booking.id}`, token, body: { status: 'cancelled' }, headers: { 'if-match': etags.get(booking.id) ?? '' } });
        expect(patched.statusCode, patched.body).toBe(200);
        etags.set(booking.id, String(patched.headers.etag));
      }
      product.held.splice(0, product.held.length, ...product.held.filter((b) => !cancelled.includes(b)));
      // Moves and resizes are checked against the other bookings; a refused one changes nothing.
      for (const step of plan.moves) {
        const target = product.held[step.target % product.held.length];
        if (!target) continue;
        const [start, end] = bookingSpan(boundaries(zone), step);
        const others = product.held.filter((b) => b !== target);
        const body = { start_time: iso(start), end_time: iso(end), quantity: step.quantity };
        const moved = await write({ method: 'PATCH', url: `/v1/bookings/${target.id}`, body, headers: { 'if-match': etags.get(target.id) ?? '' } }, { start, end, quantity: step.quantity }, others);
        if (moved) product.held.splice(product.held.indexOf(target), 1, moved);
      }
      // Reactivating a cancelled booking needs room again.
      for (const booking of cancelled) {
        const back = await write({ method: 'PATCH', url: `/v1/bookings/${booking.id}`, body: { status: 'active' }, headers: { 'if-match': etags.get(booking.id) ?? '' } }, booking, product.held);
        if (back) product.held.push(back);
      }
      if (!product.active) {
        const etag = String((await h.request({ method: 'GET', url: `/v1/products/${product.id}`, token })).headers.etag);
        const patched = await h.request({ method: 'PATCH', url: `/v1/products/${product.id}`, token, body: { status: 'maintenance' }, headers: { 'if-match': etag } });
        expect(patched.statusCode, patched.body).toBe(200);
        product.record = patched.json<Doc>();
      }
      products.push(product);
    }
  });
  afterAll(() => h.close());

  it("answers a product's slots as the model's boundaries and peaks", async () => {
    const query = fc.record({ product: fc.nat(), granularity: fc.constantFrom('day' as const, 'hour' as const), range });
    await fc.assert(
      fc.asyncProperty(query, async ({ product: pick, granularity, range: [from, to] }) => {
        const product = products[pick % products.length] as Product;
        const zone = boundaries(product.zone);
        const url = `/v1/products/${product.id}/availability?from=${encodeURIComponent(rangeText(from))}&to=${encodeURIComponent(rangeText(to))}&granularity=${granularity}`;
        const answer = await h.request({ method: 'GET', url, token });
        const [start, end] = [inZone(from, zone), inZone(to, zone)];
        if (asWritten(to) <= asWritten(from) || end <= start) {
          expect(answer.statusCode, `${product.zone} ${url}: ${answer.body}`).toBe(400);
          return;
        }
        const slots = slotsCovering(granularity === 'day' ? zone.days : zone.hours, start, end).map((slot) => {
          const booked = peakHeld(product.held, slot.start, slot.end);
          return { start: iso(slot.start), end: iso(slot.end), booked, available: product.active ? Math.max(0, product.total - booked) : 0 };
        });
        expect(answer.statusCode, `${product.zone} ${url}: ${answer.body}`).toBe(200);
        expect({ zone: product.zone, url, answer: answer.json<unknown>() }).toEqual({
          zone: product.zone,
          url,
          answer: { product_id: product.id, total_items: product.total, time_zone: product.zone, from: slots[0]?.start, to: slots.at(-1)?.end, granularity, slots },
        });
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });

  it('finds exactly the products the model has room in, with its available, filtered, sorted and paged like a list', async () => {
    const sortable = ['name', 'total_items', 'status', 'created_at'];
    const query = fc.record({
      range,
      quantity: fc.integer({ min: 1, max: 3 }),
      filter: fc.constantFrom<Record<string, string>>({}, { total_items__gte: '2' }, { status: 'active' }, { time_zone__in: 'Europe/Berlin,UTC,Asia/Kolkata' }),
      sort: fc.shuffledSubarray(sortable, { maxLength: 2 }).chain((fields) => fc.tuple(...fields.map((field) => fc.boolean().map((descending) => ({ field, descending }))))),
      fields: fc.option(fc.subarray(['name', 'total_items', 'time_zone', 'status', 'available'], { minLength: 1 }), { nil: undefined }),
      page: fc.integer({ min: 1, max: 3 }),
      perPage: fc.integer({ min: 1, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(query, async ({ range: [from, to], quantity, filter, sort, fields, page, perPage }) => {
        const params = { city: 'Zoneville', ...filter };
        const search = new URLSearchParams({ from: rangeText(from), to: rangeText(to), quantity: String(quantity), ...params, page: String(page), per_page: String(perPage) });
        if (sort.length) search.set('sort', sort.map(({ field, descending }) => `${descending ? '-' : ''}${field}`).join(','));
        if (fields) search.set('fields', fields.join(','));
        const url = `/v1/availability?${search.toString()}`;
        const answer = await h.request({ method: 'GET', url, token });
        if (asWritten(to) <= asWritten(from)) {
          expect(answer.statusCode, `${url}: ${answer.body}`).toBe(400);
          return;
        }
        const free = products.flatMap((product) => {
          const zone = boundaries(product.zone);
          const [start, end] = [inZone(from, zone), inZone(to, zone)];
          if (end <= start) return [];
          const available = product.active ? Math.max(0, product.total - peakHeld(product.held, start, end)) : 0;
          return available >= quantity ? [{ ...product.record, available }] : [];
        });
        // Sorting, filtering, projecting and paging are the list model's; `available` and the
        // stay's `price` always come (null: the model's products have no price).
        const expected = expectedAnswer(productFields, free, { params, sort, ...(fields ? { fields: [...fields, 'available', 'price'] } : {}), page, perPage });
        expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
        const body = answer.json<{ items: unknown[]; total: number; page: number; per_page: number }>();
        expect({ url, body }).toEqual({ url, body: { items: expected.items, total: expected.total, page, per_page: perPage } });
        expect(answer.headers['x-total-count']).toBe(String(expected.total));
        expect(answer.headers['x-total-pages']).toBe(String(Math.max(1, Math.ceil(expected.total / perPage))));
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });
});
