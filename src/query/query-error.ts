/**
 * Errors and error paths of the list query language. Every refusal is a 400
 * `validation_failed` naming the offending element, e.g. `where.$or[1].city.$gt`.
 */
import { validationError } from '../http/errors.js';
import type { ApiError } from '../http/errors.js';

/** Keys longer than this are shortened in paths: a client's key is echoed, not stored. */
const MAX_KEY_IN_PATH = 64;

const plainKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A 400 for one element of the query. */
export function queryError(path: string, message: string): ApiError {
  return validationError([{ field: path, message }]);
}

/** `base.key`, or `base["odd key"]` when the key is not a plain identifier. */
export function keyPath(base: string, key: string): string {
  if (plainKey.test(key) && key.length <= MAX_KEY_IN_PATH) return `${base}.${key}`;
  const shown = key.length > MAX_KEY_IN_PATH ? `${key.slice(0, MAX_KEY_IN_PATH)}…` : key;
  return `${base}[${JSON.stringify(shown)}]`;
}

/** `base[index]`. */
export function indexPath(base: string, index: number): string {
  return `${base}[${index}]`;
}

/** A client-supplied name made safe to quote in a message (bounded length, JSON-escaped). */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > MAX_KEY_IN_PATH ? `${name.slice(0, MAX_KEY_IN_PATH)}…` : name);
}
