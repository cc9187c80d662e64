import type { QueryShape, ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import type { StoredRow } from '../registry/types.js';
import { lookbacks, maxBookingMs } from './booking-spans.js';
import { occupancy, peakHeld } from './occupancy.js';
import type { Holding } from './occupancy.js';

const bookings = getResource('bookings');

type BookingStatus = StoredRow<typeof bookings>['status'];

/** Statuses whose bookings hold units for good (docs/bookings.md: `cancelled` and `expired` hold none). */
export const holdingStatuses: readonly BookingStatus[] = Object.freeze(['active', 'completed'] as const);

/** The status of an order's booking that holds its units only while its `expires_at` is in the future (docs/selling.md). */
export const heldStatus: BookingStatus = 'held';

/** Whether a booking's `status` is one that holds units for good. */
export function holdsForGood(status: unknown): boolean {
  return holdingStatuses.some((holding) => holding === (status ?? 'active'));
}

/**
 * Whether a booking holds units at `now`: `active` and `completed` always, `held` while its
 * `expires_at` is later than `now`. Time decides, not a sweep: an expired hold frees its units
 * at that instant, whether or not the expiry sweep has recorded it yet.
 */
export function holdsUnits(status: unknown, expiresAt: unknown, now: number): boolean {
  if (holdsForGood(status)) return true;
  return status === heldStatus && typeof expiresAt === 'string' && Date.parse(expiresAt) > now;
}

/**
 * The bookings of `productIds` that hold units at some instant of `[from, to)`, of every
 * tenant (capacity is the product's, whoever booked it): `queries` must be unscoped
 * (`asSystem()`). Index-backed (`bookings_holdings_idx`, led by `product_id, start_time`)
 * and bounded: a booking overlapping `from` started at most its product's longest booking
 * before it (`booking-spans.ts`), so the scan reads a short range of the index instead of
 * the product's history. Products with a recorded span share one query; those without
 * (no bookings, or loaded in bulk) look back the 366 days any booking may last. A caller
 * that read the spans with the products (`withLongestBooking`) passes them as `known`.
 * `now` decides which `held` bookings still hold ({@link holdsUnits}): the caller's clock.
 */
export async function holdingsOf(queries: ScopedQueries, productIds: readonly string[], from: number, to: number, now: number, known?: ReadonlyMap<string, number>): Promise<Holding[]> {
  if (productIds.length === 0 || to <= from) return [];
  const spans = known ?? (await lookbacks(queries.connection, productIds));
  const recorded = productIds.filter((id) => (spans.get(id) ?? maxBookingMs) < maxBookingMs);
  const unrecorded = productIds.filter((id) => (spans.get(id) ?? maxBookingMs) >= maxBookingMs);
  const longest = Math.max(0, ...recorded.map((id) => spans.get(id) ?? 0));
  const groups = [
    { ids: recorded, lookback: longest },
    { ids: unrecorded, lookback: maxBookingMs },
  ].filter((group) => group.ids.length > 0);
  const found: Holding[] = [];
  for (const group of groups) found.push(...(await overlapping(queries, group.ids, from - group.lookback, from, to, now)));
  return found;
}

/**
 * One product's holdings query, compiled once per scope: a product's availability and every
 * capacity check read one product (a search's list of ids is built per call).
 */
const oneProduct: QueryShape = {
  values: 5,
  build: (queries, [productId, earliestStart, from, to, now]) => rangeOf(queries, [productId], earliestStart, from, to, now),
};

/** The first `limit` of {@link oneProduct}'s rows by start time: a page of one product's holdings in time order. */
const oneProductInOrder: QueryShape = {
  values: 6,
  build: (queries, [productId, earliestStart, from, to, now, limit]) =>
    rangeOf(queries, [productId], earliestStart, from, to, now)
      .orderBy('start_time')
      .limit(limit as number),
};

/** One index range: bookings of `productIds` starting in `[earliestStart, to)` and ending after `from`. */
async function overlapping(queries: ScopedQueries, productIds: readonly string[], earliestStart: number, from: number, to: number, now: number): Promise<Holding[]> {
  const at = timestampOf(queries);
  const rows =
    productIds.length === 1
      ? await queries.rows(oneProduct, [productIds[0], at(earliestStart), at(from), at(to), at(now)])
      : await holdingsQuery(queries, productIds, earliestStart, from, to, now).execute();
  return rows.map((row) => holdingOf(queries, row));
}

function holdingOf({ dialect }: ScopedQueries, row: Readonly<Record<string, unknown>>): Holding {
  return {
    id: String(row._id),
    productId: String(row.product_id),
    start: Date.parse(String(dialect.fromDb('timestamp', row.start_time))),
    end: Date.parse(String(dialect.fromDb('timestamp', row.end_time))),
    quantity: Number(row.quantity),
  };
}

/** An instant (epoch ms) in the database's encoding of a timestamp. */
function timestampOf(queries: ScopedQueries): (ms: number) => unknown {
  return (ms) => queries.dialect.toDb('timestamp', new Date(ms).toISOString());
}

/** The one range of `bookings_holdings_idx` that {@link holdingsOf} reads (its plan is tested). */
export function holdingsQuery(queries: ScopedQueries, productIds: readonly string[], earliestStart: number, from: number, to: number, now: number) {
  const at = timestampOf(queries);
  return rangeOf(queries, productIds, at(earliestStart), at(from), at(to), at(now));
}

/** {@link holdingsQuery} with its timestamps already encoded (or holes in their place). */
function rangeOf(queries: ScopedQueries, productIds: readonly unknown[], earliestStart: unknown, from: unknown, to: unknown, now: unknown) {
  return queries
    .scoped(bookings)
    .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity'])
    .where('product_id', 'in', productIds as string[])
    .where('start_time', '>=', earliestStart as string)
    .where('start_time', '<', to as string)
    .where('end_time', '>', from as string)
    .where((eb) => eb.or([eb('status', 'in', [...holdingStatuses]), eb.and([eb('status', '=', heldStatus), eb('expires_at', '>', now as string)])]));
}

/**
 * The first `limit` bookings of one product holding units in `[from, to)`, by start time
 * then id, leaving out `exceptId`: what a refusal names as its conflicts, read as a bounded
 * page of the holdings index instead of the whole range (a busy product has thousands).
 */
export async function firstHoldings(queries: ScopedQueries, productId: string, from: number, to: number, now: number, limit: number, exceptId?: string): Promise<string[]> {
  const spans = await lookbacks(queries.connection, [productId]);
  const at = timestampOf(queries);
  let query = rangeOf(queries, [productId], at(from - (spans.get(productId) ?? maxBookingMs)), at(from), at(to), at(now));
  if (exceptId !== undefined) query = query.where('_id', '!=', exceptId);
  const rows = await query.orderBy('start_time').orderBy('_id').limit(limit).execute();
  return rows.map((row) => String(row._id));
}

/** Holdings {@link peakWithin} reads per query: most stays' whole range, a busy product's first days. */
const pageRows = 500;

/**
 * The most units the holdings of one product reach at any instant of `[from, to)`, leaving
 * out `exceptId`, read in pages of holdings by start time and stopping as soon as the peak
 * reaches `enough`, a level at which the caller's answer can no longer change. A refusal on
 * a product booked solid then reads its first page, not the year it asks for, while it holds
 * the product's lock; a stay the product has room for reads its whole range, as it must.
 * The instants before a page's last start are settled by the holdings that started before
 * it, so each page is judged up to there by the same occupancy as every other read
 * (`occupancy.ts`), with the holdings still running into it; the next page starts again at
 * that start, as a page may stop among holdings that share it. `queries` must be unscoped
 * (`asSystem()`), as for {@link holdingsOf}.
 */
export async function peakWithin(
  queries: ScopedQueries,
  productId: string,
  from: number,
  to: number,
  now: number,
  options: { readonly exceptId?: string; readonly enough?: number; readonly pageRows?: number } = {},
): Promise<number> {
  const { enough = Infinity, pageRows: limit = pageRows } = options;
  const at = timestampOf(queries);
  const spans = await lookbacks(queries.connection, [productId]);
  let cursor = from - Math.min(spans.get(productId) ?? maxBookingMs, maxBookingMs);
  let judged = from;
  let running: Holding[] = [];
  let peak = 0;
  while (judged < to && peak < enough) {
    const page = (await queries.rows(oneProductInOrder, [productId, at(cursor), at(judged), at(to), at(now), limit])).map((row) => holdingOf(queries, row));
    let started = page;
    let settled = to;
    if (page.length === limit) {
      settled = page[page.length - 1]?.start ?? to;
      if (settled > cursor) started = page.filter((h) => h.start < settled);
      else {
        // A full page of holdings that all start at `cursor`: take that instant whole.
        settled = cursor + 1;
        started = await overlapping(queries, [productId], cursor, judged, settled, now);
      }
    }
    const holding = [...running, ...started.filter((h) => h.id !== options.exceptId)];
    const until = Math.min(settled, to);
    if (until > judged) {
      peak = Math.max(peak, peakHeld(occupancy(holding), judged, until));
      judged = until;
    }
    running = holding.filter((h) => h.end > judged);
    cursor = settled;
  }
  return peak;
}
