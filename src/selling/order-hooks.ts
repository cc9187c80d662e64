import { assertCapacity } from '../booking/capacity.js';
import { bookingPeriod, lockedProduct } from '../booking/booking-hooks.js';
import type { ApiRecord } from '../data/record-codec.js';
import { newId } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, validationError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { BookingRow } from '../registry/index.js';
import type { CreateDraft, ResourceHooks } from '../services/resource-hooks.js';
import { tenantCurrencyHooks } from '../services/hooks/tenant-currency.js';
import { deprecationHeaders } from '../http/deprecation.js';
import { amountProblem } from '../lib/money.js';
import { loadQuote } from './quotes.js';
import type { Quote } from './quotes.js';
import { notForSale, sellable } from './sale.js';
import type { Stay } from './sale.js';
import { cancelBooking, lockedBookingOf } from './order-booking.js';

const bookings = getResource('bookings');

/**
 * An order of a product without a price is v1's order, deprecated (docs/versioning.md): its
 * create answers with RFC 9745 `Deprecation` (the day selling shipped) and an RFC 8594
 * `Sunset` twelve months later.
 */
const unpricedOrderDeprecation: Readonly<Record<string, string>> = (({ deprecation, sunset }) => ({ deprecation, sunset }))(
  deprecationHeaders({ since: '2026-12-06T00:00:00Z', sunset: '2027-12-06T00:00:00Z' }),
);

/** Fields the service sets on an order of a product with a price (docs/selling.md "Orders"). */
const pricedOwned = ['total_amount', 'currency', 'status'] as const;
/** Fields an order's quote stands for. */
const stayFields = ['product_id', 'start_time', 'end_time', 'quantity'] as const;
/** What an end user may never set on an order: the money and the status are the service's. */
const guestOwned = ['total_amount', 'currency', 'status'] as const;

/** The statuses a PATCH may cancel an order of a product with a price from. */
const cancellable: readonly string[] = ['active', 'confirmed'];

/**
 * Orders as holds (docs/selling.md "Orders"): a create of a priced product prices the stay
 * (or takes a quote's lines and total), checks status, restrictions and capacity under the
 * product's lock, and inserts the order's `held` booking in the same transaction. An order
 * of a product without a price keeps the behaviour of v1 (docs/versioning.md).
 */
export function orderHooks(settings: { readonly holdSeconds: number }): ResourceHooks {
  return {
    updateConflicts: ['invalid_transition'],
    // A create locks the product first, before the reference check share-locks it: two
    // creates that both held a share lock and then asked for the update lock would deadlock
    // (PostgreSQL). An update or delete (its values carry `_id`) locks order, booking,
    // product in that order instead (`order-booking.ts`).
    async lock(hook, values) {
      if ('_id' in values) return;
      const { unit } = hook;
      if (typeof values.product_id === 'string') await lockedProduct(unit, values.product_id);
      else if (typeof values.quote_id === 'string') await lockedProduct(unit, (await quoteIn(unit, values.quote_id, unit.principal.scope.nodeId)).product_id);
    },
    async beforeCreate(hook, draft) {
      const { unit } = hook;
      const values = draft.values;
      const endUser = unit.principal.ownRecordsOf !== undefined;
      const quote = typeof values.quote_id === 'string' ? await quoteOf(unit, values, draft.owner) : undefined;
      const productId = quote?.product_id ?? values.product_id;
      if (typeof productId !== 'string') throw validationError([{ field: 'product_id', message: 'is required (or send quote_id)' }]);
      const product = await lockedProduct(unit, productId);
      if (!product) {
        if (quote) throw new ApiError('invalid_quote', "The quote's product is no longer in your reach", { extensions: { reason: 'invalid' } });
        return draft; // the reference check answered 400 already
      }
      if (product.price === null || product.price === undefined) {
        if (quote || endUser) throw notForSale();
        return legacyOrder(hook, draft);
      }
      const owned = pricedOwned.filter((field) => values[field] !== undefined);
      if (owned.length > 0) throw validationError(owned.map((field) => ({ field, message: 'is set by the service for an order of a product with a price' })));
      const stay = quote ? { start: Date.parse(quote.start_time), end: Date.parse(quote.end_time), quantity: quote.quantity } : stayOf(values);
      const priced = await sellable(unit, product, stay);
      await assertCapacity(unit, product.total_items, { productId, ...stay });
      const holdSeconds = typeof values.hold_seconds === 'number' ? values.hold_seconds : settings.holdSeconds;
      const expiresAt = new Date(unit.now + holdSeconds * 1000).toISOString();
      const times = { start_time: new Date(stay.start).toISOString(), end_time: new Date(stay.end).toISOString() };
      const bookingId = newId(unit);
      const { quote_id: _quote, hold_seconds: _hold, ...kept } = values;
      const order = {
        ...kept,
        product_id: productId,
        ...times,
        quantity: stay.quantity,
        status: 'active',
        total_amount: quote?.total ?? priced.total,
        currency: quote?.currency ?? priced.currency,
        lines: quote?.lines ?? priced.lines,
        expires_at: expiresAt,
        booking_id: bookingId,
      };
      await unit.insert(bookings, {
        id: bookingId,
        owner: draft.owner,
        values: { product_id: productId, user_id: values.user_id ?? null, ...times, status: 'held', quantity: stay.quantity, order_id: draft.id, expires_at: expiresAt, source: 'api' },
      });
      return { ...draft, values: order };
    },
    async beforeUpdate(hook, merged, changes, previous) {
      const { unit } = hook;
      if (unit.principal.ownRecordsOf !== undefined) refuseOwned(changes, guestOwned, 'is set by the service for end users');
      if (typeof previous.booking_id !== 'string') {
        // v1 order: free status changes; the amount still fits its currency.
        if ('total_amount' in changes || 'currency' in changes) assertTotal(merged);
        return;
      }
      refuseOwned(changes, [...pricedOwned.filter((f) => f !== 'status'), 'start_time', 'end_time'], 'is set by the service for an order of a product with a price');
      const cancelling = 'status' in changes && changes.status !== previous.status;
      if (cancelling) {
        const from = String(previous.status);
        const to = String(merged.status);
        if (to !== 'cancelled' || !cancellable.includes(from)) {
          throw new ApiError('invalid_transition', `A ${from} order cannot become ${to}: a PATCH may only cancel an active or confirmed order`, {
            extensions: { from, to, allowed: cancellable.includes(from) ? ['cancelled'] : [] },
          });
        }
      }
      // The order's booking is the same stay for the same user (docs/selling.md "Orders").
      const reassigning = 'user_id' in changes && (changes.user_id ?? null) !== (previous.user_id ?? null);
      if (!cancelling && !reassigning) return;
      let booking = await lockedBookingOf(unit, previous);
      if (!booking) return;
      if (reassigning) booking = (await unit.update(bookings, booking, booking.etag, { user_id: merged.user_id ?? null })).row as BookingRow;
      if (cancelling) await cancelBooking(unit, booking);
    },
    createHeaders(record) {
      return isPricedOrder(record) ? undefined : unpricedOrderDeprecation;
    },
    updateEvent(merged, changes, previous) {
      return typeof previous.booking_id === 'string' && changes.status === 'cancelled' && previous.status !== 'cancelled' ? 'orders.cancelled' : undefined;
    },
    async beforeDelete(hook, record) {
      // A deleted order frees its units with it, in the same transaction.
      const booking = await lockedBookingOf(hook.unit, record);
      if (booking) await hook.unit.softDelete(bookings, booking, String(booking.etag));
    },
  };
}

/** The quote an order names, standing and of the order's tenant; the stay then comes from it alone. */
async function quoteOf(unit: UnitOfWork, values: Readonly<Record<string, unknown>>, owner: string | null): Promise<Quote> {
  const sent = stayFields.filter((field) => values[field] !== undefined);
  if (sent.length > 0) throw validationError(sent.map((field) => ({ field, message: 'comes from the quote: send quote_id without the stay, or the stay without quote_id' })));
  return quoteIn(unit, String(values.quote_id), owner);
}

/** Quotes each unit of work has read: the lock hook reads the order's quote, the create reuses it. */
const quotesRead = new WeakMap<UnitOfWork, Quote>();

/** The quote `quoteId` of `owner`, read once per unit of work. */
async function quoteIn(unit: UnitOfWork, quoteId: string, owner: string | null): Promise<Quote> {
  const known = quotesRead.get(unit);
  if (known?.quote_id === quoteId) return known;
  const quote = await loadQuote(unit.trx, quoteId, owner, unit.now);
  quotesRead.set(unit, quote);
  return quote;
}

/** The stay a body asks for: both times (400 without), at most 366 days, `quantity` default 1. */
function stayOf(values: Readonly<Record<string, unknown>>): Stay {
  const missing = (['start_time', 'end_time'] as const).filter((field) => typeof values[field] !== 'string');
  if (missing.length > 0) throw validationError(missing.map((field) => ({ field, message: 'is required (or send quote_id)' })));
  const period = bookingPeriod(values);
  if (!period) throw validationError([{ field: 'end_time', message: 'must be after start_time' }]);
  return { ...period, quantity: typeof values.quantity === 'number' ? values.quantity : 1 };
}

/** An order of a product without a price, as v1 made it: times required, status and currency defaulted. */
async function legacyOrder(hook: Parameters<NonNullable<ResourceHooks['beforeCreate']>>[0], draft: CreateDraft): Promise<CreateDraft> {
  const values = draft.values;
  if (values.hold_seconds !== undefined) throw validationError([{ field: 'hold_seconds', message: 'applies only to orders of a product with a price' }]);
  const missing = (['start_time', 'end_time'] as const).filter((field) => typeof values[field] !== 'string');
  if (missing.length > 0) throw validationError(missing.map((field) => ({ field, message: 'is required' })));
  const { quote_id: _quote, hold_seconds: _hold, ...kept } = values;
  const defaulted: CreateDraft = { ...draft, values: { ...kept, status: values.status ?? 'active' } };
  const withCurrency = tenantCurrencyHooks.beforeCreate ? await tenantCurrencyHooks.beforeCreate(hook, defaulted) : defaulted;
  assertTotal(withCurrency.values);
  return withCurrency;
}

/** A caller's `total_amount` is no finer than its currency (docs/selling.md "Money"). */
function assertTotal(order: Readonly<Record<string, unknown>>): void {
  if (order.total_amount === null || order.total_amount === undefined) return;
  const problem = amountProblem(order.total_amount, String(order.currency));
  if (problem) throw validationError([{ field: 'total_amount', message: problem }]);
}

function refuseOwned(changes: Readonly<Record<string, unknown>>, fields: readonly string[], message: string): void {
  const sent = fields.filter((field) => field in changes);
  if (sent.length > 0) throw validationError(sent.map((field) => ({ field, message })));
}

/** Whether an order holds (or held) units through a booking: one of a product with a price. */
export function isPricedOrder(order: ApiRecord | Readonly<Record<string, unknown>>): boolean {
  return typeof order.booking_id === 'string';
}
