import type { Clock } from '../../src/core/clock.js';

/**
 * A clock that starts at the real time and advances by one millisecond on every reading.
 * Records created one after another then get strictly increasing `created_at` values, so
 * the default sort (`-created_at`) is fully determined by creation order on every database.
 */
export function steppingClock(start: number = Date.now()): Clock {
  let next = start;
  return {
    now() {
      next += 1;
      return next;
    },
  };
}
