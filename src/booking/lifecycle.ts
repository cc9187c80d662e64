import { ApiError } from '../http/errors.js';

/** The statuses a booking may move to from each status (docs/bookings.md "Lifecycle"). */
export const nextStatuses: Readonly<Record<string, readonly string[]>> = Object.freeze({
  active: Object.freeze(['cancelled', 'completed']),
  // Reactivation takes units again, so it is checked against capacity like a new booking.
  cancelled: Object.freeze(['active']),
  completed: Object.freeze([]),
  // Bookings of orders change only through their order (docs/selling.md), never through this table.
  held: Object.freeze([]),
  expired: Object.freeze([]),
});

/** Refuses a status change the lifecycle does not allow (409 `invalid_transition`, naming the allowed next states). */
export function assertTransition(from: string, to: string): void {
  if (from === to) return;
  const allowed = nextStatuses[from] ?? [];
  if (allowed.includes(to)) return;
  const options = allowed.length > 0 ? `it can become ${allowed.join(' or ')}` : `${from} is final`;
  throw new ApiError('invalid_transition', `A ${from} booking cannot become ${to}: ${options}`, { extensions: { from, to, allowed: [...allowed] } });
}
