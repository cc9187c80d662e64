import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, validationError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { ProductRow } from '../registry/index.js';
import type { ResourceHooks } from '../services/resource-hooks.js';
import type { Row } from '../data/record-codec.js';
import { assertCapacity, assertFutureHoldings } from './capacity.js';
import { maxBookingMs } from './booking-spans.js';
import { holdsForGood } from './holdings.js';
import { assertTransition } from './lifecycle.js';

const products = getResource('products');

/** Product statuses that take no new, moved, enlarged or reactivated booking. */
export const closedStatuses: readonly string[] = ['maintenance', 'retired'];

/**
 * The booking invariant (docs/bookings.md "Capacity"): every write that could make a
 * product's bookings hold more units than it has first locks the product row (`SELECT …
 * FOR UPDATE` on PostgreSQL; SQLite runs one write transaction at a time), then checks the
 * peak overlap in the same transaction. Two writers for one product are serialised by that
 * lock, so the check and the insert cannot interleave (no check-then-insert race) on any
 * number of instances. Writes that free units (a cancel, a delete) take the lock too: a
 * refusal reads the peak and then, in a second statement, the conflicts the caller may
 * see, and both must describe the same bookings.
 */
export const bookingHooks: ResourceHooks = {
  updateConflicts: ['capacity_exceeded', 'product_unavailable', 'invalid_transition', 'managed_by_order', 'managed_by_calendar'],
  async lock(hook, values) {
    if (typeof values.product_id === 'string') await lockedProduct(hook.unit, values.product_id);
  },
  async beforeCreate(hook, draft) {
    const booking = draft.values;
    if (orderStatuses.includes(String(booking.status))) throw validationError([{ field: 'status', message: `${String(booking.status)} bookings are made by orders (POST /v1/orders)` }]);
    const period = bookingPeriod(booking);
    if (!period) return draft; // the generic range check answers 400
    const product = await lockedProduct(hook.unit, String(booking.product_id));
    if (!product) return draft; // the reference check answers 400
    // A product that takes no bookings takes none at all, even one created `cancelled`.
    assertBookable(hook.unit, product);
    if (!holdsForGood(booking.status)) return draft;
    await assertCapacity(hook.unit, product.total_items, { productId: product._id, ...period, quantity: Number(booking.quantity ?? 1) });
    return draft;
  },
  async beforeUpdate(hook, merged, changes, previous) {
    assertNotManaged(previous);
    if ('status' in changes) assertTransition(String(previous.status), String(merged.status));
    if (!holdsForGood(merged.status)) return;
    const period = bookingPeriod(merged);
    if (!period) return;
    // A booking that held units and now holds no more at any instant (same or shorter
    // interval inside the old one, no more units) can break nothing: no product check, no
    // capacity check, even on a product already over its units or no longer taking bookings.
    if (holdsForGood(previous.status) && holdsNoMore(period, Number(merged.quantity), previous)) return;
    const product = await lockedProduct(hook.unit, String(merged.product_id));
    if (!product) return;
    assertBookable(hook.unit, product);
    await assertCapacity(hook.unit, product.total_items, { bookingId: String(merged._id), productId: product._id, ...period, quantity: Number(merged.quantity) });
  },
  async beforeDelete(_hook, record) {
    // A cancelled block holds nothing and its feed no longer names it: deleting it is tidying
    // (a product with one could otherwise never be deleted: cascade deny).
    if (record.source === 'calendar' && record.status === 'cancelled') return;
    assertNotManaged(record);
  },
};

/** Statuses only an order gives its booking (docs/selling.md). */
const orderStatuses: readonly string[] = ['held', 'expired'];

/**
 * A booking of an order changes only through its order (409 `managed_by_order`), a block of
 * a calendar import only through its feed (409 `managed_by_calendar`, docs/calendars.md).
 */
function assertNotManaged(booking: Readonly<Record<string, unknown>>): void {
  if (booking.source === 'calendar') {
    throw new ApiError('managed_by_calendar', `The booking is a block of the calendar import ${String(booking.calendar_import_id)}: change the event in its feed, or delete the import`, {
      extensions: { calendar_import_id: booking.calendar_import_id },
    });
  }
  if (typeof booking.order_id !== 'string') return;
  throw new ApiError('managed_by_order', `The booking belongs to the order ${booking.order_id}: confirm, cancel or let it expire through /v1/orders`, { extensions: { order_id: booking.order_id } });
}

/** Lowering `total_items` must leave room for every unit bookings hold from now on. */
export const productHooks: ResourceHooks = {
  updateConflicts: ['capacity_exceeded'],
  async beforeUpdate(hook, merged, changes, previous) {
    if (!('total_items' in changes) || Number(merged.total_items) >= Number(previous.total_items)) return;
    await assertFutureHoldings(hook.unit, String(merged._id), Number(merged.total_items), Number(previous.total_items));
  },
};

/** Products each unit of work has locked: the lock hook reads the row, the checks reuse it. */
const locked = new WeakMap<UnitOfWork, ProductRow>();

/** The product in the caller's reach, locked for the rest of the transaction (read once per unit). */
export async function lockedProduct(unit: UnitOfWork, id: string): Promise<ProductRow | undefined> {
  const known = locked.get(unit);
  if (known && known._id === id) return known;
  const row = await unit.find(products, id, { lock: 'update' });
  if (row) locked.set(unit, row);
  return row;
}

/** `[start, end)` in epoch ms, or `null` when the values are not a valid range. */
function periodOf(booking: Readonly<Record<string, unknown>>): { start: number; end: number } | null {
  const start = Date.parse(String(booking.start_time));
  const end = Date.parse(String(booking.end_time));
  return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : null;
}

/** {@link periodOf} of a booking being written: `null` is left to the generic check; longer than 366 days → 400. */
export function bookingPeriod(booking: Readonly<Record<string, unknown>>): { start: number; end: number } | null {
  const period = periodOf(booking);
  if (period && period.end - period.start > maxBookingMs) throw validationError([{ field: 'end_time', message: 'a booking lasts at most 366 days' }]);
  return period;
}

/** Whether `period` × `quantity` lies within what `previous` held: at no instant more units than before. */
function holdsNoMore(period: { start: number; end: number }, quantity: number, previous: Row): boolean {
  const before = periodOf(previous);
  return before !== null && period.start >= before.start && period.end <= before.end && quantity <= Number(previous.quantity);
}

/** A product in maintenance or retired takes no booking; an unpublished one none from end users. */
export function assertBookable(unit: UnitOfWork, product: ProductRow): void {
  const status = product.status;
  if (closedStatuses.includes(status)) throw new ApiError('product_unavailable', `The product is ${status} and takes no new, moved or enlarged bookings`, { extensions: { product_status: status } });
  const endUser = unit.principal.ownRecordsOf !== undefined;
  const published = product.is_published === true || product.is_published === 1;
  if (endUser && !published) throw new ApiError('product_unavailable', 'The product is not published: end users cannot book it');
}
