import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import { recordSpan } from './booking-spans.js';
import { holdingsOf } from './holdings.js';
import type { Holding } from './occupancy.js';
import { occupancy, peakHeld } from './occupancy.js';

const bookings = getResource('bookings');

/** The last instant a timestamp can name: "from now on" ends here. */
const endOfTime = Date.parse('9999-12-31T23:59:59.999Z');

/** What a booking asks of its product: `quantity` units over `[start, end)`. */
export interface Claim {
  /** The booking's own id on a change (its current holding is not counted against it). */
  readonly bookingId?: string;
  readonly productId: string;
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

/**
 * Refuses a claim that would hold more units than the product has at some instant
 * (409 `capacity_exceeded`). The caller holds the product's row lock (see `booking-hooks.ts`),
 * so no other booking of the product can commit between this check and the write.
 */
export async function assertCapacity(unit: UnitOfWork, totalItems: number, claim: Claim): Promise<void> {
  const others = (await holdingsOf(unit.asSystem(), [claim.productId], claim.start, claim.end)).filter((h) => h.id !== claim.bookingId);
  const peak = peakHeld(occupancy(others), claim.start, claim.end);
  if (peak + claim.quantity <= totalItems) {
    // Still under the product lock: later checks of this product look back at least this far.
    await recordSpan(unit.trx, claim.productId, claim.end - claim.start);
    return;
  }
  const available = Math.max(0, totalItems - peak);
  throw new ApiError('capacity_exceeded', `Only ${available} of the product's ${totalItems} units are free throughout the requested time; the booking needs ${claim.quantity}`, {
    extensions: { available, conflicts: await readableIds(unit, others) },
  });
}

/**
 * Refuses lowering a product's `total_items` below what its bookings hold at some instant
 * from now on (409 `capacity_exceeded`; `conflicts` are the future bookings that hold units).
 */
export async function assertFutureHoldings(unit: UnitOfWork, productId: string, totalItems: number): Promise<void> {
  const future = await holdingsOf(unit.asSystem(), [productId], unit.now, endOfTime);
  const peak = peakHeld(occupancy(future), unit.now, endOfTime);
  if (peak <= totalItems) return;
  throw new ApiError('capacity_exceeded', `Bookings hold up to ${peak} units of the product from now on; total_items cannot go below that`, {
    extensions: { available: 0, held: peak, conflicts: await readableIds(unit, future) },
  });
}

/**
 * The ids among `holdings` the caller may read (another tenant's bookings stay unnamed), by
 * start time. A primary-key lookup, sorted here: an ORDER BY in the query let SQLite's
 * planner walk the tenant's whole start-time index instead, which grows with the tenant's
 * bookings and ran inside the product lock.
 */
async function readableIds(unit: UnitOfWork, holdings: readonly Holding[]): Promise<string[]> {
  if (holdings.length === 0) return [];
  const rows = await unit
    .scoped(bookings)
    .select('_id')
    .where(
      '_id',
      'in',
      holdings.map((h) => h.id),
    )
    .execute();
  const readable = new Set(rows.map((row) => String(row._id)));
  return holdings
    .filter((h) => readable.has(h.id))
    .sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((h) => h.id);
}
