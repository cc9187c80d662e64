import type { ResourceDef } from '../registry/types.js';
import type { FilterNode } from './filter-ast.js';
import { combine, countConditions } from './filter-ast.js';
import { DEFAULT_PER_PAGE, MAX_FILTER_CONDITIONS, MAX_PAGE, MAX_PER_PAGE } from './limits.js';
import { listParameters } from './list-query.js';
import type { ListQuery, QueryString } from './list-query.js';
import { parseFields } from './parse-fields.js';
import { parsePageNumber } from './parse-page-number.js';
import { parseQueryFilters } from './parse-query-filters.js';
import { parseSort } from './parse-sort.js';
import { parseWhere } from './parse-where.js';
import { queryError } from './query-error.js';
import { rejectNul } from './reject-nul.js';
import { singleParameter } from './single-parameter.js';

/** Options of {@link parseListQuery}. */
export interface ListQueryOptions {
  /** Further parameters the caller handles itself (e.g. `format` on exports). */
  readonly extraReserved?: readonly string[];
  /** Names the endpoint adds to every item itself, which `fields` may name (see `parseFields`). */
  readonly computedFields?: readonly string[];
  /** An export answers every match: `page` and `per_page` would be ignored, so they are refused. */
  readonly unpaged?: boolean;
}

/**
 * Parses a list endpoint's query string: `where`, `<field>` / `<field>__<op>` filters
 * (combined with AND), `sort`, `fields`, `page` and `per_page`. Every parameter is either
 * understood or refused; nothing is silently ignored.
 *
 * @throws ApiError `validation_failed` (400) naming the offending parameter
 */
export function parseListQuery(resource: ResourceDef, query: QueryString, options: ListQueryOptions = {}): ListQuery {
  const reserved = new Set([...listParameters, ...(options.extraReserved ?? [])]);
  if (options.unpaged) {
    for (const name of ['page', 'per_page']) if (query[name] !== undefined) throw queryError(name, 'an export is not paged: it answers every match');
  }
  const where = singleParameter(query, 'where');
  const parts: FilterNode[] = [];
  const whereNode = where === undefined ? null : parseWhere(resource, where);
  if (whereNode) {
    // Flattening a top-level AND keeps the SQL shallow; `where={}` (an empty AND) adds nothing.
    parts.push(...(whereNode.kind === 'and' ? whereNode.children : [whereNode]));
  }
  parts.push(...parseQueryFilters(resource, query, reserved));
  const filter = parts.length === 0 ? null : combine('and', parts);
  if (filter && countConditions(filter) > MAX_FILTER_CONDITIONS) {
    throw queryError('where', `more than ${MAX_FILTER_CONDITIONS} conditions in one query (where and filter parameters together)`);
  }
  const parsed: ListQuery = {
    filter,
    sort: parseSort(resource, singleParameter(query, 'sort')),
    fields: parseFields(resource, singleParameter(query, 'fields'), options.computedFields),
    page: parsePageNumber('page', singleParameter(query, 'page'), 1, MAX_PAGE),
    perPage: parsePageNumber('per_page', singleParameter(query, 'per_page'), DEFAULT_PER_PAGE, MAX_PER_PAGE),
  };
  rejectNul(query, whereNode);
  return parsed;
}
