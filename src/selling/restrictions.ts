/**
 * Rates and the restrictions they put on a stay. A rate covers local dates `[from, to)` of
 * one product; the caller keeps a product's rates from sharing a date.
 */
import type { Period } from './stay-periods.js';

/** A product's rate over the local dates `[from, to)` (`YYYY-MM-DD`): a price and restrictions. */
export interface RateRule {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /** The price of one period on these dates; `null` keeps the product's price. */
  readonly price: number | null;
  /** The fewest and most periods of a stay arriving on these dates. */
  readonly minStay: number | null;
  readonly maxStay: number | null;
  /** No stay may include these dates. */
  readonly closed: boolean;
  /** No stay may arrive on these dates (staying through them is fine). */
  readonly closedToArrival: boolean;
}

/** Why a stay cannot be sold: the rule, the rate that sets it, and the date it applies to. */
export interface Reason {
  readonly rule: 'closed' | 'closed_to_arrival' | 'min_stay' | 'max_stay';
  readonly rate_id: string;
  readonly date: string;
  /** The stay length the rule allows, for `min_stay` and `max_stay`. */
  readonly limit?: number;
}

/** The rate covering the local date `date`, if any. */
export function rateOn(rates: readonly RateRule[], date: string): RateRule | undefined {
  return rates.find((rate) => rate.from <= date && date < rate.to);
}

/**
 * Every reason the rates refuse a stay of `periods` (non-empty), judged on the whole stay so
 * that a client learns all it must change at once: each closed date (once, however many
 * periods fall on it); an arrival date closed to arrival; and a stay shorter or longer than
 * the arrival date's rate allows. Sorted by date, then rule.
 */
export function restrictions(rates: readonly RateRule[], periods: readonly Period[]): Reason[] {
  const reasons: Reason[] = [];
  for (const date of new Set(periods.map((period) => period.date))) {
    const rate = rateOn(rates, date);
    if (rate?.closed) reasons.push({ rule: 'closed', rate_id: rate.id, date });
  }
  const arrival = periods[0]?.date;
  const rate = arrival === undefined ? undefined : rateOn(rates, arrival);
  if (rate !== undefined && arrival !== undefined) {
    if (rate.closedToArrival) reasons.push({ rule: 'closed_to_arrival', rate_id: rate.id, date: arrival });
    if (rate.minStay !== null && periods.length < rate.minStay) reasons.push({ rule: 'min_stay', rate_id: rate.id, date: arrival, limit: rate.minStay });
    if (rate.maxStay !== null && periods.length > rate.maxStay) reasons.push({ rule: 'max_stay', rate_id: rate.id, date: arrival, limit: rate.maxStay });
  }
  return reasons.sort((a, b) => compare(a.date, b.date) || compare(a.rule, b.rule));
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
