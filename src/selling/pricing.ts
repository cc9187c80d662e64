/**
 * The price of a stay: pure, no I/O. The caller loads the product, its rates and service
 * charges; this judges the stay against them and prices it line by line, in exact minor
 * units (money.ts), answering amounts as JSON numbers in the major unit.
 */
import { fromMinor, percentOf, toMinor } from '../lib/money.js';
import { rateOn, restrictions } from './restrictions.js';
import type { RateRule, Reason } from './restrictions.js';
import { stayPeriods } from './stay-periods.js';
import type { PriceUnit } from './stay-periods.js';

export type { RateRule, Reason } from './restrictions.js';

/**
 * How a service charge is counted: once per order, per unit booked, per unit and period, or
 * as a percent (`amount`, 0–100) of the rent.
 */
export type ChargeBasis = 'per_order' | 'per_unit' | 'per_unit_per_period' | 'percent_of_rent';

/** A service charge added to every stay of a product. */
export interface ChargeRule {
  readonly id: string;
  readonly name: string | null;
  readonly basis: ChargeBasis;
  /** Major units of `currency`, or a percent for `percent_of_rent`. */
  readonly amount: number;
  readonly currency: string;
}

/** What a stay is priced from. `start` and `end` are epoch ms, `quantity` the units booked. */
export interface PricingInput {
  readonly product: { readonly price: number | null; readonly priceUnit: PriceUnit; readonly currency: string; readonly timeZone: string };
  readonly rates: readonly RateRule[];
  readonly charges: readonly ChargeRule[];
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

/** The rent of one period: `start` and `end` are ISO 8601 UTC instants, `date` the local date that prices it. */
export interface RentLine {
  readonly kind: 'rent';
  readonly start: string;
  readonly end: string;
  readonly date: string;
  readonly unit_price: number;
  readonly quantity: number;
  readonly amount: number;
  /** The rate whose price applies; `null` for the product's own price. */
  readonly rate_id: string | null;
}

/** One service charge of the stay. */
export interface ChargeLine {
  readonly kind: 'service_charge';
  readonly service_charge_id: string;
  readonly name: string | null;
  readonly basis: ChargeBasis;
  readonly amount: number;
}

/** A line of a priced stay. */
export type Line = RentLine | ChargeLine;

/**
 * The outcome of pricing a stay: its lines and total, or why it has no price — the product
 * has none (`not_for_sale`), a charge is in another currency than the product, or the rates
 * refuse the stay (every reason listed).
 */
export type Pricing =
  | { readonly kind: 'priced'; readonly currency: string; readonly periods: number; readonly lines: readonly Line[]; readonly total: number }
  | { readonly kind: 'not_for_sale' }
  | { readonly kind: 'restricted'; readonly reasons: readonly Reason[] }
  | { readonly kind: 'currency_mismatch'; readonly service_charge_id: string; readonly currency: string; readonly product_currency: string };

/**
 * Prices a stay of `quantity` units over `[start, end)`. Judged in this order, the first
 * that applies answering: no product price → `not_for_sale`; a charge in another currency →
 * `currency_mismatch` (the first such charge); any restriction → `restricted`. Otherwise each
 * period is one rent line at the price of the rate covering its date (else the product's),
 * followed by the charges in the order given; `total` is the sum of the lines.
 *
 * Throws a `MoneyError` (money.ts) for a stored amount or percent money.ts refuses, or a
 * line or total beyond what a JSON number holds exactly; a `RangeError` for bounds
 * `stayPeriods` refuses or a quantity that is not a positive integer.
 */
export function priceStay(input: PricingInput): Pricing {
  const { product, quantity } = input;
  if (product.price === null) return { kind: 'not_for_sale' };
  const mismatch = input.charges.find((charge) => charge.currency !== product.currency);
  if (mismatch) return { kind: 'currency_mismatch', service_charge_id: mismatch.id, currency: mismatch.currency, product_currency: product.currency };
  if (!Number.isSafeInteger(quantity) || quantity < 1) throw new RangeError(`quantity must be a positive integer, not ${quantity}`);

  const periods = stayPeriods(product.priceUnit, product.timeZone, input.start, input.end);
  const reasons = restrictions(input.rates, periods);
  if (reasons.length > 0) return { kind: 'restricted', reasons };

  const currency = product.currency;
  const money = (minor: bigint): number => fromMinor(minor, currency);
  const units = BigInt(quantity);
  const lines: Line[] = [];
  let rent = 0n;
  for (const period of periods) {
    // A rate without a price only restricts: the product's price applies, and the line names no rate.
    const rate = rateOn(input.rates, period.date);
    const rated = rate !== undefined && rate.price !== null ? { id: rate.id, price: rate.price } : { id: null, price: product.price };
    const unitPrice = toMinor(rated.price, currency);
    const amount = unitPrice * units;
    rent += amount;
    const start = new Date(period.start).toISOString();
    const end = new Date(period.end).toISOString();
    lines.push({ kind: 'rent', start, end, date: period.date, unit_price: money(unitPrice), quantity, amount: money(amount), rate_id: rated.id });
  }
  let total = rent;
  for (const charge of input.charges) {
    const amount = chargeAmount(charge, currency, units, BigInt(periods.length), rent);
    total += amount;
    lines.push({ kind: 'service_charge', service_charge_id: charge.id, name: charge.name, basis: charge.basis, amount: money(amount) });
  }
  return { kind: 'priced', currency, periods: periods.length, lines, total: money(total) };
}

/** A charge in minor units, given the stay's units, periods and rent (minor units). */
function chargeAmount(charge: ChargeRule, currency: string, units: bigint, periods: bigint, rent: bigint): bigint {
  switch (charge.basis) {
    case 'per_order':
      return toMinor(charge.amount, currency);
    case 'per_unit':
      return toMinor(charge.amount, currency) * units;
    case 'per_unit_per_period':
      return toMinor(charge.amount, currency) * units * periods;
    case 'percent_of_rent':
      return percentOf(rent, charge.amount);
  }
}
