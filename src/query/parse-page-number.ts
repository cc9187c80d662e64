import { queryError } from './query-error.js';

const digits = /^\d+$/;

/**
 * A `page` / `per_page` value: decimal digits only (no sign, exponent or blanks), between
 * 1 and `max`. Digits are checked before conversion so `1e3` or `0x10` never slip through.
 *
 * @throws ApiError `validation_failed` (400) naming the parameter and the limit
 */
export function parsePageNumber(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  if (!digits.test(text)) throw queryError(name, 'must be a positive integer');
  const value = Number(text);
  if (value < 1) throw queryError(name, 'must be at least 1');
  if (value > max) throw queryError(name, `must be at most ${max}`);
  return value;
}
