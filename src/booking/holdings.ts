import type { ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import type { Holding } from './occupancy.js';

const bookings = getResource('bookings');

/** Statuses whose bookings hold units (CONTRACT.md part 3: `cancelled` holds none). */
export const holdingStatuses: readonly string[] = Object.freeze(['active', 'completed']);

/** A booking lasts at most this long (CONTRACT.md part 3); it also bounds the index scan below. */
export const maxBookingMs = 366 * 24 * 60 * 60 * 1000;

/**
 * The bookings of `productIds` that hold units at some instant of `[from, to)`, of every
 * tenant (capacity is the product's, whoever booked it): `queries` must be unscoped
 * (`asSystem()`). One query on the `(product_id, start_time)` index: no booking lasts more
 * than {@link maxBookingMs}, so one that overlaps `from` started at most that long before,
 * and the scan is a bounded range of the index instead of a product's whole history.
 */
export async function holdingsOf(queries: ScopedQueries, productIds: readonly string[], from: number, to: number): Promise<Holding[]> {
  if (productIds.length === 0 || to <= from) return [];
  const { dialect } = queries;
  const at = (ms: number) => dialect.toDb('timestamp', new Date(ms).toISOString()) as string;
  const rows = await queries
    .scoped(bookings)
    .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity'])
    .where('product_id', 'in', [...productIds])
    .where('start_time', '>=', at(from - maxBookingMs))
    .where('start_time', '<', at(to))
    .where('end_time', '>', at(from))
    .where('status', 'in', [...holdingStatuses])
    .execute();
  return rows.map((row) => ({
    id: String(row._id),
    productId: String(row.product_id),
    start: Date.parse(String(dialect.fromDb('timestamp', row.start_time))),
    end: Date.parse(String(dialect.fromDb('timestamp', row.end_time))),
    quantity: Number(row.quantity),
  }));
}
