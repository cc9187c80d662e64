import type { ScopedQueries } from '../data/scoped-queries.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { assertBookable } from '../booking/booking-hooks.js';
import { peakWithin } from '../booking/holdings.js';
import { ApiError, validationError } from '../http/errors.js';
import { MoneyError } from '../lib/money.js';
import { getResource } from '../registry/index.js';
import type { ProductRow } from '../registry/index.js';
import { priceStay } from './pricing.js';
import type { ChargeRule, Line, Pricing } from './pricing.js';
import { ratesOf } from './product-rates.js';

const serviceCharges = getResource('service-charges');

/** What a buyer asks of a product: `quantity` units over `[start, end)` (epoch ms). */
export interface Stay {
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

/** A stay the product sells: its price in the product's currency. */
export interface PricedStay {
  readonly currency: string;
  readonly periods: number;
  readonly lines: readonly Line[];
  readonly total: number;
}

/** The product's price, rates and every service charge applied to `stay`, whatever the caller's tenant: the product's own. */
export async function priceOf(queries: ScopedQueries, product: ProductRow, stay: Stay): Promise<Pricing> {
  const system = queries.asSystem();
  const id = product._id;
  const chargeRows = await system.scoped(serviceCharges).select(['_id', 'name', 'basis', 'amount', 'currency']).where('product_id', '=', id).orderBy('created_at').orderBy('_id').execute();
  const charges: ChargeRule[] = chargeRows.map((row) => ({
    id: row._id,
    name: row.name,
    basis: row.basis ?? 'per_order',
    amount: row.amount,
    currency: row.currency ?? product.currency ?? 'EUR',
  }));
  const price = product.price;
  return priceStay({
    product: { price, priceUnit: product.price_unit ?? 'night', currency: product.currency ?? 'EUR', timeZone: product.time_zone ?? 'UTC' },
    rates: price === null ? [] : await ratesOf(system, id),
    charges,
    ...stay,
  });
}

/**
 * The price of a stay the product sells, or the refusal a quote and an order answer alike
 * (docs/selling.md): 409 `product_unavailable`, `not_for_sale`, `currency_mismatch` or
 * `stay_restricted` with every reason. Capacity is the caller's: a quote reads it, an order
 * takes it under the product's lock.
 */
export async function sellable(unit: UnitOfWork, product: ProductRow, stay: Stay): Promise<PricedStay> {
  assertBookable(unit, product);
  let pricing: Pricing;
  try {
    pricing = await priceOf(unit, product, stay);
  } catch (error) {
    // A total no JSON number holds exactly (price × units × periods beyond 2^53 minor units).
    if (error instanceof MoneyError) throw validationError([{ field: 'quantity', message: `the stay's total is beyond what one order can charge (${error.message})` }]);
    throw error;
  }
  switch (pricing.kind) {
    case 'priced':
      return { currency: pricing.currency, periods: pricing.periods, lines: pricing.lines, total: pricing.total };
    case 'not_for_sale':
      throw notForSale();
    case 'currency_mismatch':
      throw new ApiError('currency_mismatch', `The service charge ${pricing.service_charge_id} is in ${pricing.currency}, the product in ${pricing.product_currency}`, {
        extensions: { service_charge_id: pricing.service_charge_id, currency: pricing.currency, product_currency: pricing.product_currency },
      });
    case 'restricted':
      throw new ApiError('stay_restricted', `The product's rates do not allow this stay: ${pricing.reasons.map((r) => `${r.rule} on ${r.date}`).join(', ')}`, {
        extensions: { reasons: pricing.reasons },
      });
  }
}

/** 409 `not_for_sale`: the product has no price. */
export function notForSale(): ApiError {
  return new ApiError('not_for_sale', 'The product has no price: it cannot be quoted or ordered (book it through /v1/bookings)');
}

/**
 * Refuses a stay the product has not `quantity` units free for at every instant (409
 * `capacity_exceeded` with `available`), without taking them: a quote holds nothing.
 */
export async function assertFree(unit: UnitOfWork, product: ProductRow, stay: Stay): Promise<void> {
  const peak = await peakWithin(unit.asSystem(), product._id, stay.start, stay.end, unit.now, { enough: product.total_items });
  const available = Math.max(0, product.total_items - peak);
  if (available >= stay.quantity) return;
  throw new ApiError('capacity_exceeded', `Only ${available} of the product's ${product.total_items} units are free throughout the requested time; the stay needs ${stay.quantity}`, {
    extensions: { available },
  });
}
