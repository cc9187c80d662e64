import type { UnitOfWork } from '../data/unit-of-work.js';
import { getResource } from '../registry/index.js';
import type { BookingRow } from '../registry/index.js';

const bookings = getResource('bookings');
const products = getResource('products');

/**
 * The booking of an order of a product with a price, locked, and its product locked after
 * it: the lock order of every order write is order, booking, product (docs/architecture.md
 * "Lock order"), so no two writes of one order and its booking wait on each other in a
 * cycle. The product lock keeps a capacity refusal's two reads describing one state while
 * this write frees or takes units. Read as the system: the booking is the order's, whoever
 * the caller is.
 */
export async function lockedBookingOf(unit: UnitOfWork, order: Readonly<Record<string, unknown>>): Promise<BookingRow | undefined> {
  if (typeof order.booking_id !== 'string') return undefined;
  const system = unit.asSystem();
  const booking = await system.find(bookings, order.booking_id, { lock: 'update' });
  if (booking) await system.find(products, booking.product_id, { lock: 'update' });
  return booking;
}

/** Cancels an order's booking (its units are free at once), unless it holds none already. */
export async function cancelBooking(unit: UnitOfWork, booking: BookingRow): Promise<void> {
  if (booking.status === 'cancelled') return;
  await unit.update(bookings, booking, booking.etag, { status: 'cancelled', expires_at: null });
}

/** The booking of a paid order: `active`, holding its units for good. */
export async function activateBooking(unit: UnitOfWork, booking: BookingRow): Promise<void> {
  await unit.update(bookings, booking, booking.etag, { status: 'active', expires_at: null });
}

/** The booking of an order whose hold ran out: `expired`, holding nothing. */
export async function expireBooking(unit: UnitOfWork, booking: BookingRow): Promise<void> {
  if (booking.status !== 'held') return;
  await unit.update(bookings, booking, booking.etag, { status: 'expired' });
}
