/**
 * The order part of ./concurrency-model.ts: orders of priced products that hold their units
 * through a `held` booking until `expires_at` (decided by the service's clock at every read,
 * not by a sweep), confirm, cancel, payments compared exactly, and the expiry sweep, as
 * src/selling/ decides them (order-hooks.ts, order-payment.ts, order-expiry.ts,
 * handlers/order-handlers.ts). Each write's answer and the world after it; the search that
 * orders a batch's events is concurrency-model.ts's.
 */
import type { Booking, Outcome, Reply, World } from './concurrency-model.js';

export type OrderStatus = 'active' | 'confirmed' | 'expired' | 'refund_required' | 'cancelled';

export interface Order {
  readonly id: string;
  /**
   * Undefined once an event that answers no ETag changed the order (a payment, the sweep):
   * a request naming it with an older one is stale; the run reads the new one back after the
   * batch, as it reads ids and ETags from answers (the service's choice, not the model's).
   */
  readonly etag: string | undefined;
  readonly product: number;
  readonly booking: string;
  /** The price of the stay, in the product's currency (EUR cents, as an integer). */
  readonly cents: number;
  readonly status: OrderStatus;
  /** Until when an unpaid order holds its units (epoch ms); null (undefined) once paid or refused. */
  readonly expires: number | undefined;
}

/** A request (or a sweep's step) about orders, with the order it names resolved. */
export type OrderOp =
  | { readonly kind: 'order'; readonly product: number; readonly start: number; readonly end: number; readonly quantity: number; readonly hold: number | undefined }
  | { readonly kind: 'confirm'; readonly id: string; readonly etag: string | undefined }
  | { readonly kind: 'cancel'; readonly id: string; readonly etag: string | undefined }
  /** A signed `orders.paid` event of `cents` EUR cents for the order. */
  | { readonly kind: 'pay'; readonly id: string; readonly cents: number; readonly event: string };

/** The refusal of `quantity` more units of a product over `[start, end)` beside the bookings holding them now (all but `except`), if they do not fit. */
export type CapacityCheck = (world: World, product: number, start: number, end: number, quantity: number, except?: string) => Outcome | undefined;

/** Whether a booking holds units at `now`: `active` and `completed` always, `held` while its `expires_at` is later (src/booking/holdings.ts). */
export function holds(b: Booking, now: number): boolean {
  return b.status === 'active' || b.status === 'completed' || (b.status === 'held' && b.expires !== undefined && b.expires > now);
}

/** The price of `quantity` units over `[start, end)` at the product's hourly price (`price_unit: hour`: one per started hour), in cents. */
export function priceOf(centsPerHour: number, start: number, end: number, quantity: number): number {
  return centsPerHour * Math.ceil((end - start) / 3_600_000) * quantity;
}

const changed = (record: string, event: string, action = 'update') => ({ record, action, event });

function withOrder(world: World, order: Order): World {
  return { ...world, orders: world.orders.map((o) => (o.id === order.id ? order : o)) };
}

function withBooking(world: World, booking: Booking): World {
  return { ...world, bookings: world.bookings.map((b) => (b.id === booking.id ? booking : b)) };
}

/**
 * A payment (or a confirm, `payment` skipped) of an order `active` or `expired`
 * (order-payment.ts `settleOrder`): a live hold is confirmed; an expired one is confirmed
 * late when its units are still free under the product's lock, else the order becomes
 * `refund_required` and its booking `expired`. `etag`: the order's new ETag, if answered.
 */
function settle(world: World, order: Order, etag: string | undefined, capacity: CapacityCheck): World {
  const booking = world.bookings.find((b) => b.id === order.booking) as Booking;
  const alive = order.status === 'active' && order.expires !== undefined && order.expires > world.now;
  if (!alive && capacity(world, booking.product, booking.start, booking.end, booking.quantity, booking.id)) {
    const expired = booking.status === 'held' ? withBooking(world, { ...booking, etag: undefined, status: 'expired' }) : world;
    const trail = booking.status === 'held' ? [changed(booking.id, 'bookings.updated')] : [];
    const next = withOrder(expired, { ...order, etag, status: 'refund_required', expires: undefined });
    return { ...next, trail: [...world.trail, ...trail, changed(order.id, 'orders.refund_required')] };
  }
  const next = withOrder(withBooking(world, { ...booking, etag: undefined, status: 'active', expires: undefined }), { ...order, etag, status: 'confirmed', expires: undefined });
  return { ...next, trail: [...world.trail, changed(booking.id, 'bookings.updated'), changed(order.id, 'orders.confirmed')] };
}

/** The model's answer to `op` in `world` and the world after it; `answer` supplies what the service chose (ids, ETags, `expires_at`). */
export function orderStep(world: World, op: OrderOp, answer: Reply, capacity: CapacityCheck): { outcome: Outcome; next: World } {
  const refuse = (outcome: Outcome) => ({ outcome, next: world });
  if (op.kind === 'order') {
    const product = world.products[op.product];
    // The reference check: a deleted product is no product; then status, price, capacity (order-hooks.ts).
    if (!product || product.deleted) return refuse({ status: 400 });
    if (product.maintenance) return refuse({ status: 409, code: 'product_unavailable' });
    const refused = capacity(world, op.product, op.start, op.end, op.quantity);
    if (refused) return refuse(refused);
    const cents = priceOf(product.cents, op.start, op.end, op.quantity);
    const body = answer.json<{ _id: string; booking_id: string; expires_at: string }>();
    const expires = Date.parse(body.expires_at);
    const order: Order = { id: body._id, etag: String(answer.headers.etag), product: op.product, booking: body.booking_id, cents, status: 'active', expires };
    const booking: Booking = { id: body.booking_id, etag: undefined, product: op.product, start: op.start, end: op.end, quantity: op.quantity, status: 'held', order: order.id, expires };
    const trail = [changed(order.id, 'orders.created', 'create'), changed(booking.id, 'bookings.created', 'create')];
    return { outcome: { status: 201, cents }, next: { ...world, orders: [...world.orders, order], bookings: [...world.bookings, booking], trail: [...world.trail, ...trail] } };
  }
  const order = world.orders.find((o) => o.id === op.id);
  if (op.kind === 'pay') {
    // Answered 200 whatever it did: the event was received (webhooks/incoming.ts).
    const paid = (outcome: 'applied' | 'ignored' | 'failed', next: World) => ({ outcome: { status: 200, payment: outcome }, next });
    if (!order) return paid('failed', world);
    if (order.status === 'confirmed') return paid('ignored', world);
    if (order.status !== 'active' && order.status !== 'expired') return paid('failed', world);
    if (op.cents !== order.cents) return paid('failed', { ...world, trail: [...world.trail, changed(order.id, 'orders.payment_mismatch', 'payment_mismatch')] });
    const next = settle(world, { ...order, etag: undefined }, undefined, capacity);
    return paid(next.orders.find((o) => o.id === order.id)?.status === 'confirmed' ? 'applied' : 'failed', next);
  }
  if (!order) return refuse({ status: 404 });
  if (order.etag !== op.etag) return refuse({ status: 412 });
  const etag = String(answer.headers.etag);
  if (op.kind === 'confirm') {
    if (order.status === 'confirmed') return refuse({ status: 200, order: 'confirmed' });
    if (order.status === 'cancelled' || order.status === 'refund_required') return refuse({ status: 409, code: 'invalid_transition' });
    const next = settle(world, order, etag, capacity);
    return { outcome: { status: 200, order: next.orders.find((o) => o.id === order.id)?.status }, next };
  }
  // A PATCH to `cancelled`: the same status again is no change, but still an update.
  if (order.status === 'cancelled')
    return { outcome: { status: 200, order: 'cancelled' }, next: { ...withOrder(world, { ...order, etag }), trail: [...world.trail, changed(order.id, 'orders.updated')] } };
  if (order.status !== 'active' && order.status !== 'confirmed') return refuse({ status: 409, code: 'invalid_transition' });
  const booking = world.bookings.find((b) => b.id === order.booking) as Booking;
  const freed = booking.status === 'cancelled' ? world : withBooking(world, { ...booking, etag: undefined, status: 'cancelled', expires: undefined });
  const trail = booking.status === 'cancelled' ? [] : [changed(booking.id, 'bookings.updated')];
  const next = withOrder(freed, { ...order, etag, status: 'cancelled' });
  return { outcome: { status: 200, order: 'cancelled' }, next: { ...next, trail: [...world.trail, ...trail, changed(order.id, 'orders.cancelled')] } };
}

/**
 * One step of the expiry sweep (order-expiry.ts `expireOne`, its own transaction): the order
 * locked and read again, expired with its `held` booking if it is still `active` past its
 * `expires_at`, else left alone. `expired` counts it.
 */
export function expireStep(world: World, id: string): { expired: number; next: World } {
  const order = world.orders.find((o) => o.id === id);
  if (!order || order.status !== 'active' || order.expires === undefined || order.expires > world.now) return { expired: 0, next: world };
  const booking = world.bookings.find((b) => b.id === order.booking) as Booking;
  const expired = booking.status === 'held' ? withBooking(world, { ...booking, etag: undefined, status: 'expired' }) : world;
  const trail = booking.status === 'held' ? [changed(booking.id, 'bookings.updated')] : [];
  const next = withOrder(expired, { ...order, etag: undefined, status: 'expired' });
  return { expired: 1, next: { ...next, trail: [...world.trail, ...trail, changed(order.id, 'orders.expired')] } };
}

/** The orders a sweep starting in `world` finds due: `active` with `expires_at` at or before now, soonest first. */
export function dueOrders(world: World): string[] {
  return world.orders
    .filter((o) => o.status === 'active' && o.expires !== undefined && o.expires <= world.now)
    .sort((a, b) => (a.expires as number) - (b.expires as number))
    .map((o) => o.id);
}
