/**
 * A product's rates as the pricing code reads them (docs/selling.md "Rates"): the live rates
 * of one product, in date order, decoded into {@link RateRule}s.
 */
import type { ScopedQueries } from '../data/scoped-queries.js';
import type { SqlDialect } from '../db/dialect.js';
import { productRates } from '../registry/sub-collections/product-rates.js';
import type { RateRule } from './restrictions.js';

export type { RateRule } from './restrictions.js';

const columns = ['_id', 'from', 'to', 'price', 'min_stay', 'max_stay', 'closed', 'closed_to_arrival'] as const;

const nullableNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * The live rates of `productId` in the reach of `queries` (tenant and soft-delete filters
 * applied), sorted by `from` (then id). The rates of one product never share a date (the
 * rate hooks refuse it under the product's lock), so at most one covers any local date.
 */
export async function ratesOf(queries: ScopedQueries, productId: string): Promise<RateRule[]> {
  const rows = await queries.scoped(productRates).select(columns).where('product_id', '=', productId).orderBy('from').orderBy('_id').execute();
  return rows.map((row: Record<string, unknown>) => rateRuleOf(queries.dialect, row));
}

/** A stored rate row as the pricing engine reads it (booleans decoded: SQLite stores 0/1). */
export function rateRuleOf(dialect: SqlDialect, row: Readonly<Record<string, unknown>>): RateRule {
  return {
    id: String(row._id),
    from: String(row.from),
    to: String(row.to),
    price: nullableNumber(row.price),
    minStay: nullableNumber(row.min_stay),
    maxStay: nullableNumber(row.max_stay),
    closed: dialect.fromDb('boolean', row.closed) === true,
    closedToArrival: dialect.fromDb('boolean', row.closed_to_arrival) === true,
  };
}
