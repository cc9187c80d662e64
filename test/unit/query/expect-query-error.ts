/**
 * Assertion helpers for the query-language tests: every refusal must be an `ApiError`
 * 400 `validation_failed` naming exactly one field path.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';

/** The `ApiError` thrown by `fn`; any other outcome fails the test. */
export function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw new Error(`expected an ApiError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected an ApiError, but nothing was thrown');
}

/** Asserts a 400 `validation_failed` whose single error names `field` (and matches `message`). */
export function expectQueryError(fn: () => unknown, field: string, message?: RegExp): ApiError {
  const error = apiErrorOf(fn);
  expect(error.status).toBe(400);
  expect(error.code).toBe('validation_failed');
  expect(error.errors?.map((e) => e.field)).toEqual([field]);
  if (message) expect(error.errors?.[0]?.message).toMatch(message);
  return error;
}
