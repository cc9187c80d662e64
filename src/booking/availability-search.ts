import type { ScopedQueries } from '../data/scoped-queries.js';
import { validationError } from '../http/errors.js';
import { compileFilter, compileSort } from '../query/compile-filter.js';
import type { ListQuery, QueryString } from '../query/list-query.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { parsePageNumber } from '../query/parse-page-number.js';
import { singleParameter } from '../query/single-parameter.js';
import { getResource } from '../registry/index.js';
import type { Row } from '../services/record-codec.js';
import { offeredUnits } from './availability.js';
import { parseRange, resolveBound } from './availability-range.js';
import type { RangeQuery } from './availability-range.js';
import { holdingsOf } from './holdings.js';
import type { Holding } from './occupancy.js';
import { occupancy, peakHeld } from './occupancy.js';

const products = getResource('products');

const hourMs = 60 * 60 * 1000;
/** A search range may span at most this long (the day-slot limit of one product). */
const maxRangeMs = 366 * 24 * hourMs;
/** Most units one search may ask for (a booking's own maximum quantity). */
const maxQuantity = 10_000;

/** A parsed availability search: the range, the units wanted, and the product list query. */
export interface AvailabilitySearch {
  readonly range: RangeQuery;
  readonly quantity: number;
  readonly list: ListQuery;
}

/** One page of products free for the search, with the fewest units free over the range. */
export interface AvailabilityPage {
  readonly rows: readonly Row[];
  readonly available: ReadonlyMap<string, number>;
  readonly total: number;
}

/**
 * `from`, `to`, `quantity` (default 1) and the products list query language.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function parseSearch(query: QueryString): AvailabilitySearch {
  const list = parseListQuery(products, query, { extraReserved: ['from', 'to', 'quantity'] });
  const quantity = parsePageNumber('quantity', singleParameter(query, 'quantity'), 1, maxQuantity);
  const range = parseRange(query);
  if (resolveBound('UTC', range.to) - resolveBound('UTC', range.from) > maxRangeMs) throw validationError([{ field: 'to', message: 'the range spans more than 366 days' }]);
  return { range, quantity, list };
}

/**
 * The products in the caller's reach (a guest's: published ones only) matching the list
 * query that have at least `quantity` units free at every instant of `[from, to)`, where a
 * date means midnight in each product's own time zone. Two queries whatever the number of
 * candidates: the candidates themselves (only the columns availability needs, in list
 * order), then one holdings query over all of them; then the page's full rows.
 */
export async function searchAvailability(queries: ScopedQueries, search: AvailabilitySearch): Promise<AvailabilityPage> {
  const { list, range, quantity } = search;
  let base = queries.scoped(products);
  if (queries.principal.ownRecordsOf !== undefined) base = base.where('is_published', '=', queries.dialect.toDb('boolean', true));
  if (list.filter) base = base.where(compileFilter(list.filter, products, queries.dialect));
  let ordered = base.select(['_id', 'total_items', 'status', 'time_zone']);
  for (const order of compileSort(list.sort, products)) ordered = ordered.orderBy(order);
  const candidates = await ordered.execute();
  const ranges = new Map(candidates.map((row) => {
    const zone = String(row.time_zone);
    return [String(row._id), { from: resolveBound(zone, range.from), to: resolveBound(zone, range.to) }];
  }));
  // Zones lie within UTC-12 and UTC+14: one query covering the widest local reading of the range.
  const spans = [...ranges.values()];
  const earliest = Math.min(...spans.map((s) => s.from));
  const latest = Math.max(...spans.map((s) => s.to));
  const holdings = await holdingsOf(queries.asSystem(), [...ranges.keys()], earliest, latest);
  const byProduct = new Map<string, Holding[]>();
  for (const holding of holdings) {
    const list = byProduct.get(holding.productId);
    if (list) list.push(holding);
    else byProduct.set(holding.productId, [holding]);
  }
  const available = new Map<string, number>();
  const matching: string[] = [];
  for (const row of candidates) {
    const id = String(row._id);
    const span = ranges.get(id);
    if (!span || span.to <= span.from) continue;
    const free = Math.max(0, offeredUnits(row) - peakHeld(occupancy(byProduct.get(id) ?? []), span.from, span.to));
    if (free < quantity) continue;
    matching.push(id);
    available.set(id, free);
  }
  const offset = (list.page - 1) * list.perPage;
  const pageIds = matching.slice(offset, offset + list.perPage);
  return { rows: await pageRows(queries, pageIds), available, total: matching.length };
}

/** The full rows of the page's products, in the page's order. */
async function pageRows(queries: ScopedQueries, ids: readonly string[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  const rows = (await queries.scoped(products).selectAll().where('_id', 'in', [...ids]).execute()) as Row[];
  const byId = new Map(rows.map((row) => [String(row._id), row]));
  const ordered: Row[] = [];
  for (const id of ids) {
    const row = byId.get(id);
    if (row) ordered.push(row);
  }
  return ordered;
}
