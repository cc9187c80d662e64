import { assertCapacity } from '../booking/capacity.js';
import type { Row } from '../data/record-codec.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { BookingRow } from '../registry/index.js';
import { isCurrency, toMinor } from '../lib/money.js';
import { activateBooking, expireBooking, lockedBookingOf } from './order-booking.js';

const orders = getResource('orders');

/** The money a payment event reports: major units and an ISO 4217 code, either possibly missing. */
export interface Payment {
  readonly amount: number | undefined;
  readonly currency: string | undefined;
}

/** What a payment (or a confirm) did to its order, as the incoming-event log records it. */
export interface Settlement {
  readonly outcome: 'applied' | 'ignored' | 'failed';
  readonly detail: string;
}

/**
 * Applies a payment to an order locked by the caller (docs/selling.md "Payment"): `payment`
 * is compared with the order's total and currency exactly, in minor units; `null` (a confirm
 * for a payment taken elsewhere) skips the comparison. A live hold is confirmed; an expired
 * one is confirmed late if the units are still free under the product's lock, else the
 * order needs a refund. Every outcome writes its event in this transaction.
 */
export async function settleOrder(unit: UnitOfWork, order: Row, payment: Payment | null): Promise<Settlement> {
  const id = String(order._id);
  if (typeof order.booking_id !== 'string') {
    // An order of a product without a price: confirmed as v1 did, without a comparison.
    if (order.status === 'confirmed') return { outcome: 'ignored', detail: 'order already confirmed' };
    await unit.update(orders, order, String(order.etag), { status: 'confirmed' });
    return { outcome: 'applied', detail: `order ${id} confirmed` };
  }
  const status = String(order.status);
  if (status === 'confirmed') return { outcome: 'ignored', detail: 'order already confirmed' };
  if (status !== 'active' && status !== 'expired') return { outcome: 'failed', detail: `order ${id} is ${status}: nothing paid for` };
  if (payment) {
    const mismatch = compare(order, payment);
    if (mismatch) {
      await unit.announce(orders, order, 'payment_mismatch', 'orders.payment_mismatch', { paid_amount: payment.amount ?? null, paid_currency: payment.currency ?? null, detail: mismatch });
      return { outcome: 'failed', detail: mismatch };
    }
  }
  const booking = await lockedBookingOf(unit, order);
  if (!booking) return { outcome: 'failed', detail: `the booking of order ${id} is gone` };
  const alive = status === 'active' && Date.parse(String(order.expires_at)) > unit.now;
  if (!alive && !(await stillFree(unit, booking))) {
    await expireBooking(unit, booking);
    await unit.update(orders, order, String(order.etag), { status: 'refund_required', expires_at: null }, { event: 'orders.refund_required' });
    return { outcome: 'failed', detail: `the hold of order ${id} expired and its units were taken: refund the payment` };
  }
  await activateBooking(unit, booking);
  await unit.update(orders, order, String(order.etag), { status: 'confirmed', paid_at: unit.at, expires_at: null }, { event: 'orders.confirmed', eventData: alive ? {} : { late: true } });
  return { outcome: 'applied', detail: alive ? `order ${id} confirmed` : `order ${id} confirmed after its hold expired (late)` };
}

/** Why a payment does not pay for the order (amount and currency exactly, in minor units), or undefined when it does. */
function compare(order: Row, payment: Payment): string | undefined {
  const expected = `${String(order.total_amount)} ${String(order.currency)}`;
  const currency = payment.currency?.toUpperCase();
  if (payment.amount === undefined || currency === undefined) return `the payment names no amount or currency; the order is ${expected}`;
  const paid = `${String(payment.amount)} ${currency}`;
  if (currency !== order.currency || !isCurrency(currency)) return `paid ${paid}, the order is ${expected}`;
  let minor: bigint;
  try {
    minor = toMinor(payment.amount, currency);
  } catch {
    return `paid ${paid}, which is no amount in ${currency}; the order is ${expected}`;
  }
  return minor === toMinor(Number(order.total_amount), currency) ? undefined : `paid ${paid}, the order is ${expected}`;
}

/** Whether the units of an expired hold are still free, checked under the product's lock (taken with the booking). */
async function stillFree(unit: UnitOfWork, booking: BookingRow): Promise<boolean> {
  const products = getResource('products');
  const product = await unit.asSystem().find(products, booking.product_id);
  if (!product) return false;
  const start = Date.parse(booking.start_time);
  const end = Date.parse(booking.end_time);
  try {
    await assertCapacity(unit, product.total_items, { bookingId: booking._id, productId: product._id, start, end, quantity: booking.quantity });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'capacity_exceeded') return false;
    throw error;
  }
}
