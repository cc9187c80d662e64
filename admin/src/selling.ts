import { holdLeft } from './days.js';
import { formatMoney } from './money.js';
import type { ChargeBasis, Order, OrderStatus, PriceUnit, Product } from './records.js';
import { session } from './session.js';

/** An order's status for people. */
export const orderStatusText: Record<OrderStatus, string> = {
  active: 'Active',
  confirmed: 'Confirmed',
  expired: 'Expired',
  refund_required: 'Refund required',
  cancelled: 'Cancelled',
  completed: 'Completed',
};

export const orderStatuses = Object.keys(orderStatusText) as OrderStatus[];

/** What one price buys, singular and plural: `1 night`, `3 nights`. */
export function periods(count: number, unit: PriceUnit): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** How a service charge counts. */
export const basisText: Record<ChargeBasis, string> = {
  per_order: 'Per order',
  per_unit: 'Per unit',
  per_unit_per_period: 'Per unit and period',
  percent_of_rent: 'Percent of rent',
};

/** A product's price as `€120.00 / night`, or `Not for sale` without one. */
export function priceText(product: Pick<Product, 'price' | 'price_unit' | 'currency'>): string {
  return product.price === null ? 'Not for sale' : `${formatMoney(product.price, product.currency)} / ${product.price_unit}`;
}

/** The last 8 characters of a record id (the random end of a UUIDv7): `…3f9c0a1e`. */
export function shortId(id: string): string {
  return `…${id.slice(-8)}`;
}

/** Whether the signed-in administrator's token carries a capability (the API decides anyway). */
export function holds(capability: string): boolean {
  return session.get()?.capabilities.has(capability) ?? false;
}

/**
 * The transitions the API allows from an order's status (docs/selling.md): a confirm (a
 * payment taken elsewhere) of a hold, live or run out (a late confirm succeeds while the
 * units are free, else the order needs a refund); a cancel of a hold or a paid order.
 */
export function canConfirm(order: Pick<Order, 'status'>): boolean {
  return (order.status === 'active' || order.status === 'expired') && holds('orders:confirm');
}

export function canCancel(order: Pick<Order, 'status'>): boolean {
  return (order.status === 'active' || order.status === 'confirmed') && holds('orders:update');
}

/** The hold column of an order: the time left of a live hold, `expired` once it ran out, else `—`. */
export function holdText(order: Pick<Order, 'status' | 'expires_at'>, now: number): string {
  if (order.status === 'expired') return 'expired';
  if (order.status === 'active' && order.expires_at) return holdLeft(order.expires_at, now);
  return '—';
}

/** Whether any of the orders holds units right now (their countdowns then tick). */
export function anyLiveHold(orders: readonly Pick<Order, 'status' | 'expires_at'>[]): boolean {
  const now = Date.now();
  return orders.some((order) => order.status === 'active' && order.expires_at !== null && Date.parse(order.expires_at) > now);
}
