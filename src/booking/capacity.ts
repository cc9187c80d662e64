import { hasCapability } from '../core/principal.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError } from '../http/errors.js';
import { recordSpan } from './booking-spans.js';
import { firstHoldings, peakWithin } from './holdings.js';

/** The capability to read a booking: without it a caller is named no conflicting booking. */
const readBookings = 'bookings:read';

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
  // Once the others hold every unit somewhere, nothing is free and reading on changes nothing.
  const peak = await peakWithin(unit.asSystem(), claim.productId, claim.start, claim.end, unit.now, { exceptId: claim.bookingId, enough: totalItems });
  if (peak + claim.quantity <= totalItems) {
    // Still under the product lock: later checks of this product look back at least this far.
    await recordSpan(unit.trx, claim.productId, claim.end - claim.start);
    return;
  }
  const available = Math.max(0, totalItems - peak);
  throw new ApiError('capacity_exceeded', `Only ${available} of the product's ${totalItems} units are free throughout the requested time; the booking needs ${claim.quantity}`, {
    extensions: { available, ...(await readableConflicts(unit, claim, claim.start, claim.end)) },
  });
}

/**
 * Refuses lowering a product's `total_items` from `currentTotal` to `totalItems` below what its
 * bookings hold at some instant from now on (409 `capacity_exceeded` with `held`, the most
 * units held from now on; `conflicts` are the future bookings that hold units). Every future
 * holding was checked against the units the product had, so the peak cannot pass
 * `currentTotal`: reaching it ends the reading.
 */
export async function assertFutureHoldings(unit: UnitOfWork, productId: string, totalItems: number, currentTotal: number): Promise<void> {
  const peak = await peakWithin(unit.asSystem(), productId, unit.now, endOfTime, unit.now, { enough: currentTotal });
  if (peak <= totalItems) return;
  throw new ApiError('capacity_exceeded', `Bookings hold up to ${peak} units of the product from now on; total_items cannot go below that`, {
    extensions: { available: 0, held: peak, ...(await readableConflicts(unit, { productId }, unit.now, endOfTime)) },
  });
}

/**
 * The ids of the bookings holding units of the product in `[from, to)` that the caller may
 * read, by start time: at most {@link maxConflicts}, with `conflicts_truncated` beyond;
 * another tenant's stay unnamed; none without `bookings:read`, which a booking's create
 * alone does not grant. The claim's own booking is left out.
 * The holdings query again, now under the caller's scope: its product-and-time range leads
 * the plan whether or not SQLite has statistics. Looking the ids up by primary key instead
 * did not: without statistics the planner read them through a tenant index and scanned
 * all the tenant's bookings, inside the product lock (docs/benchmarks-history.md "The
 * booking core").
 */
async function readableConflicts(unit: UnitOfWork, claim: Pick<Claim, 'productId' | 'bookingId'>, from: number, to: number): Promise<{ conflicts: string[]; conflicts_truncated?: true }> {
  if (!hasCapability(unit.principal, readBookings)) return { conflicts: [] };
  // A refusal on a busy product stays small: the first ones by start time, and a flag.
  const ids = await firstHoldings(unit, claim.productId, from, to, unit.now, maxConflicts + 1, claim.bookingId);
  return ids.length > maxConflicts ? { conflicts: ids.slice(0, maxConflicts), conflicts_truncated: true } : { conflicts: ids };
}

/** Most conflicting booking ids one refusal names (docs/bookings.md "Capacity"). */
const maxConflicts = 100;
