import type { ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import { lookbacks, maxBookingMs } from './booking-spans.js';
import type { Holding } from './occupancy.js';

const bookings = getResource('bookings');

/** Statuses whose bookings hold units (CONTRACT.md part 3: `cancelled` holds none). */
export const holdingStatuses: readonly string[] = Object.freeze(['active', 'completed']);

/**
 * The bookings of `productIds` that hold units at some instant of `[from, to)`, of every
 * tenant (capacity is the product's, whoever booked it): `queries` must be unscoped
 * (`asSystem()`). Index-backed (`bookings_holdings_idx`, led by `product_id, start_time`)
 * and bounded: a booking overlapping `from` started at most its product's longest booking
 * before it (`booking-spans.ts`), so the scan reads a short range of the index instead of
 * the product's history. Products with a recorded span share one query; those without
 * (no bookings, or loaded in bulk) look back the 366 days any booking may last. A caller
 * that read the spans with the products (`withLongestBooking`) passes them as `known`.
 */
export async function holdingsOf(queries: ScopedQueries, productIds: readonly string[], from: number, to: number, known?: ReadonlyMap<string, number>): Promise<Holding[]> {
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
  for (const group of groups) found.push(...(await overlapping(queries, group.ids, from - group.lookback, from, to)));
  return found;
}

/** One index range: bookings of `productIds` starting in `[earliestStart, to)` and ending after `from`. */
async function overlapping(queries: ScopedQueries, productIds: readonly string[], earliestStart: number, from: number, to: number): Promise<Holding[]> {
  const { dialect } = queries;
  const rows = await holdingsQuery(queries, productIds, earliestStart, from, to).execute();
  return rows.map((row) => ({
    id: String(row._id),
    productId: String(row.product_id),
    start: Date.parse(String(dialect.fromDb('timestamp', row.start_time))),
    end: Date.parse(String(dialect.fromDb('timestamp', row.end_time))),
    quantity: Number(row.quantity),
  }));
}

/** The one range of `bookings_holdings_idx` that {@link holdingsOf} reads (its plan is tested). */
export function holdingsQuery(queries: ScopedQueries, productIds: readonly string[], earliestStart: number, from: number, to: number) {
  const at = (ms: number) => queries.dialect.toDb('timestamp', new Date(ms).toISOString()) as string;
  return queries
    .scoped(bookings)
    .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity'])
    .where('product_id', 'in', [...productIds])
    .where('start_time', '>=', at(earliestStart))
    .where('start_time', '<', at(to))
    .where('end_time', '>', at(from))
    .where('status', 'in', [...holdingStatuses]);
}
