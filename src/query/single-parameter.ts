import type { QueryString } from './list-query.js';
import { queryError } from './query-error.js';

/**
 * The value of a query parameter that may appear at most once, or `undefined` when absent.
 * A repeated parameter is refused rather than resolved by "first wins" or "last wins",
 * which proxies and frameworks disagree on; an empty value is refused as a likely mistake.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function singleParameter(query: QueryString, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw queryError(name, 'given more than once');
  if (value === '') throw queryError(name, 'must not be empty');
  return value;
}
