import type { FreeProduct } from '../booking/availability-search.js';
import type { Row } from '../data/record-codec.js';
import type { ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import { productRates } from '../registry/sub-collections/product-rates.js';
import { MoneyError } from '../lib/money.js';
import { priceStay } from './pricing.js';
import type { ChargeBasis, ChargeRule } from './pricing.js';
import { rateRuleOf } from './product-rates.js';
import type { PriceUnit } from './stay-periods.js';

const serviceCharges = getResource('service-charges');
/** Product ids per query: far below either database's parameter limit. */
const idsPerQuery = 5_000;

/** A search item's `price`: what the stay costs, as an order would charge it. */
export interface StayPrice {
  readonly total: number;
  readonly currency: string;
}

/** The stay's price of each free product (null without a price), and the products the service cannot sell for it. */
export interface SearchPrices {
  readonly prices: Map<string, StayPrice | null>;
  readonly refused: Set<string>;
}

/**
 * Prices the range for every free product of a search (docs/selling.md "Quotes"): rates and
 * charges of all of them in two queries, then the pure engine per product. A product whose
 * rates refuse the stay (or whose charges are in another currency) is refused, so every
 * product the search lists with a price can be ordered at that total.
 */
export async function searchPrices(queries: ScopedQueries, free: readonly FreeProduct[], quantity: number): Promise<SearchPrices> {
  const prices = new Map<string, StayPrice | null>();
  const refused = new Set<string>();
  const forSale = free.filter(({ row }) => row.price !== null && row.price !== undefined);
  for (const { row } of free) if (!forSale.some((item) => item.row === row)) prices.set(String(row._id), null);
  const system = queries.asSystem();
  for (let start = 0; start < forSale.length; start += idsPerQuery) {
    const slice = forSale.slice(start, start + idsPerQuery);
    const ids = slice.map(({ row }) => String(row._id));
    const charges = group(await system.scoped(serviceCharges).selectAll().where('product_id', 'in', ids).orderBy('created_at').orderBy('_id').execute());
    const rates = group(await system.scoped(productRates).selectAll().where('product_id', 'in', ids).orderBy('from').execute());
    for (const { row, from, to } of slice) {
      const id = String(row._id);
      const currency = String(row.currency ?? 'EUR');
      try {
        const pricing = priceStay({
          product: { price: Number(row.price), priceUnit: (row.price_unit ?? 'night') as PriceUnit, currency, timeZone: String(row.time_zone ?? 'UTC') },
          rates: (rates.get(id) ?? []).map((rate) => rateRuleOf(queries.dialect, rate)),
          charges: (charges.get(id) ?? []).map((charge) => chargeRule(charge, currency)),
          start: from,
          end: to,
          quantity,
        });
        if (pricing.kind === 'priced') prices.set(id, { total: pricing.total, currency: pricing.currency });
        else refused.add(id);
      } catch (error) {
        // A total beyond what a JSON number holds exactly cannot be ordered either.
        if (!(error instanceof MoneyError)) throw error;
        refused.add(id);
      }
    }
  }
  return { prices, refused };
}

function group(rows: readonly Record<string, unknown>[]): Map<string, Row[]> {
  const byProduct = new Map<string, Row[]>();
  for (const row of rows as Row[]) {
    const id = String(row.product_id);
    const list = byProduct.get(id);
    if (list) list.push(row);
    else byProduct.set(id, [row]);
  }
  return byProduct;
}

function chargeRule(row: Row, productCurrency: string): ChargeRule {
  return {
    id: String(row._id),
    name: (row.name as string | null) ?? null,
    basis: (row.basis ?? 'per_order') as ChargeBasis,
    amount: Number(row.amount),
    currency: String(row.currency ?? productCurrency),
  };
}
