import type { ScopedQueries } from '../data/scoped-queries.js';
import { validationError } from '../http/errors.js';
import { compileFilter, compileSort } from '../query/compile-filter.js';
import type { ListQuery, QueryString } from '../query/list-query.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { parsePageNumber } from '../query/parse-page-number.js';
import { singleParameter } from '../query/single-parameter.js';
import { getResource } from '../registry/index.js';
import type { Row } from '../data/record-codec.js';
import { offeredUnits, zoneOf } from './availability.js';
import { parseRange, resolveBound } from './availability-range.js';
import type { RangeQuery } from './availability-range.js';
import { lookbackOf, withLongestBooking } from './booking-spans.js';
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

/** A product free for the search, with the instants the range covers in its time zone. */
export interface FreeProduct {
  readonly row: Row;
  readonly from: number;
  readonly to: number;
}

/**
 * Which free products the search lists: a domain above (selling) leaves out those it cannot
 * sell for the range, before the page is cut, so totals and pages stay right.
 */
export type SearchFilter = (free: readonly FreeProduct[], quantity: number) => Promise<ReadonlySet<string>>;

/**
 * `from`, `to`, `quantity` (default 1) and the products list query language.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function parseSearch(query: QueryString): AvailabilitySearch {
  const list = parseListQuery(products, query, { extraReserved: ['from', 'to', 'quantity'], computedFields: ['available'] });
  const quantity = parsePageNumber('quantity', singleParameter(query, 'quantity'), 1, maxQuantity);
  const range = parseRange(query);
  if (resolveBound('UTC', range.to) - resolveBound('UTC', range.from) > maxRangeMs) throw validationError([{ field: 'to', message: 'the range spans more than 366 days' }]);
  return { range, quantity, list };
}

/** Product ids per holdings query: far below SQLite's 32 766 and PostgreSQL's 65 535 parameters. */
const idsPerQuery = 5_000;

/** A candidate product with the instants the range covers in its own time zone. */
interface Candidate {
  readonly row: Row;
  readonly id: string;
  readonly from: number;
  readonly to: number;
  /** How far back its holdings query looks (`booking-spans.ts`). */
  readonly lookback: number;
}

/**
 * The products in the caller's reach (a guest's: published ones only) matching the list
 * query that have at least `quantity` units free at every instant of `[from, to)`, where a
 * date means midnight in each product's own time zone. Two queries: the candidates in list
 * order with their recorded spans, then one holdings query for all of them (`product_id in
 * (…)`; a list of ids keeps both databases on the holdings index, where a subquery let
 * PostgreSQL scan the table).
 */
export async function searchAvailability(queries: ScopedQueries, search: AvailabilitySearch, now: number, refused?: SearchFilter): Promise<AvailabilityPage> {
  const { list, range, quantity } = search;
  const candidates: Candidate[] = [];
  // Products share few zones: resolving a date costs a dozen zone readings, so once per zone.
  const spans = new Map<string, { from: number; to: number }>();
  for (const row of (await candidatesQuery(queries, list).execute()) as Row[]) {
    const zone = zoneOf(row);
    let span = spans.get(zone);
    if (!span) spans.set(zone, (span = { from: resolveBound(zone, range.from), to: resolveBound(zone, range.to) }));
    if (span.to > span.from) candidates.push({ row, id: String(row._id), ...span, lookback: lookbackOf(row) });
  }
  const byProduct = await holdingsByProduct(queries, candidates, now);
  const available = new Map<string, number>();
  let matching: Candidate[] = [];
  for (const candidate of candidates) {
    const { row, id, from, to } = candidate;
    const free = Math.max(0, offeredUnits(row) - peakHeld(occupancy(byProduct.get(id) ?? []), from, to));
    if (free < quantity) continue;
    matching.push(candidate);
    available.set(id, free);
  }
  if (refused) {
    const left = await refused(matching, quantity);
    if (left.size > 0) matching = matching.filter((candidate) => !left.has(candidate.id));
  }
  const offset = (list.page - 1) * list.perPage;
  return { rows: matching.slice(offset, offset + list.perPage).map((candidate) => candidate.row), available, total: matching.length };
}

/**
 * The products in the caller's reach (a guest's: published ones only) matching the list
 * query, with their recorded booking spans, in list order (its plan is tested).
 * Availability decides which of them are listed, so every one is read: the index should
 * serve the filter, and the matches be sorted (`sortKeyAfterFilter`).
 */
export function candidatesQuery(queries: ScopedQueries, list: ListQuery) {
  let base = queries.scoped(products);
  if (queries.principal.ownRecordsOf !== undefined) base = base.where('is_published', '=', queries.dialect.toDb('boolean', true));
  if (list.filter) base = base.where(compileFilter(list.filter, products, queries.dialect));
  let ordered = withLongestBooking(base);
  for (const order of compileSort(list.sort, products, { key: (column) => queries.dialect.sortKeyAfterFilter(column) })) ordered = ordered.orderBy(order);
  return ordered;
}

/** The holdings of the candidates over the widest span any of them needs, by product. */
async function holdingsByProduct(queries: ScopedQueries, candidates: readonly Candidate[], now: number): Promise<Map<string, Holding[]>> {
  const byProduct = new Map<string, Holding[]>();
  if (candidates.length === 0) return byProduct;
  // A loop, not Math.min(...spread): thousands of candidates would overflow the call stack.
  let from = Infinity;
  let to = -Infinity;
  for (const candidate of candidates) {
    from = Math.min(from, candidate.from);
    to = Math.max(to, candidate.to);
  }
  for (let start = 0; start < candidates.length; start += idsPerQuery) {
    const slice = candidates.slice(start, start + idsPerQuery);
    const spans = new Map(slice.map((c) => [c.id, c.lookback]));
    for (const holding of await holdingsOf(queries.asSystem(), [...spans.keys()], from, to, now, spans)) {
      const held = byProduct.get(holding.productId);
      if (held) held.push(holding);
      else byProduct.set(holding.productId, [holding]);
    }
  }
  return byProduct;
}
