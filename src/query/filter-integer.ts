import { FILTER_INTEGER_RANGE } from './limits.js';
import { queryError } from './query-error.js';

/**
 * A filter value for an integer field: a whole number within {@link FILTER_INTEGER_RANGE}.
 *
 * @throws ApiError `validation_failed` (400) naming `path`
 */
export function filterInteger(value: unknown, path: string): number {
  const { min, max } = FILTER_INTEGER_RANGE;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw queryError(path, `must be an integer from ${min} to ${max}`);
  return value;
}
