import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import type { QueryString } from '../query/list-query.js';
import { parseTimestamp } from '../core/parse-timestamp.js';
import { singleParameter } from '../query/single-parameter.js';
import { midnightOf } from './time-slots.js';

/**
 * One end of an availability range as the caller wrote it: a calendar date, which means
 * local midnight in each product's own time zone, or an absolute instant.
 */
export type RangeBound = { readonly date: number } | { readonly instant: number };

/** `from` and `to` of a request, checked for form; resolved per product by {@link resolveBound}. */
export interface RangeQuery {
  readonly from: RangeBound;
  readonly to: RangeBound;
}

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseBound(text: string): RangeBound | undefined {
  const date = isoDate.exec(text);
  if (date) {
    const [year, month, day] = date.slice(1, 4).map(Number) as [number, number, number];
    const at = Date.UTC(year, month - 1, day);
    const valid = year >= 1000 && new Date(at).getUTCMonth() === month - 1 && new Date(at).getUTCDate() === day;
    return valid ? { date: at } : undefined;
  }
  const timestamp = parseTimestamp(text);
  return timestamp === undefined ? undefined : { instant: Date.parse(timestamp) };
}

/** Whether `text` is a range bound: a calendar date or an ISO 8601 timestamp with a zone (the `date-or-date-time` format). */
export function isRangeBound(text: string): boolean {
  return parseBound(text) !== undefined;
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
