import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import type { QueryString } from '../query/list-query.js';
import { parseBound } from '../core/range-bound.js';
import type { RangeBound } from '../core/range-bound.js';
import { singleParameter } from '../query/single-parameter.js';
import { midnightOf } from './time-slots.js';

/** `from` and `to` of a request, checked for form; resolved per product by {@link resolveBound}. */
export interface RangeQuery {
  readonly from: RangeBound;
  readonly to: RangeBound;
}

/** The instant a bound names for a product in `zone`. */
export function resolveBound(zone: string, bound: RangeBound): number {
  return 'date' in bound ? midnightOf(zone, bound.date) : bound.instant;
}

/**
 * `from` and `to`, both required, each a date (`2030-03-31`) or an ISO 8601 timestamp with
 * a zone; `to` must come after `from` (compared in UTC, where a date is UTC midnight).
 * Collects the problems of both, so one 400 names everything to fix.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function parseRange(query: QueryString): RangeQuery {
  const errors: FieldError[] = [];
  const bound = (name: 'from' | 'to'): RangeBound | undefined => {
    const text = singleParameter(query, name);
    if (text === undefined) {
      errors.push({ field: name, message: 'is required (a date YYYY-MM-DD or an ISO 8601 timestamp)' });
      return undefined;
    }
    const parsed = parseBound(text);
    if (!parsed) errors.push({ field: name, message: 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a zone (2030-03-31T10:00:00Z)' });
    return parsed;
  };
  const from = bound('from');
  const to = bound('to');
  if (from && to && resolveBound('UTC', to) <= resolveBound('UTC', from)) errors.push({ field: 'to', message: 'must be after from' });
  if (!from || !to || errors.length > 0) throw validationError(errors);
  return { from, to };
}
