import { resources } from '../registry/index.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { productRates } from '../registry/sub-collections/product-rates.js';

const verbs = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** Every event a webhook can subscribe to (docs/webhooks.md "Event catalogue"), sorted. */
export const eventNames: readonly string[] = Object.freeze(
  [
    // The sub-collections written through the unit of work announce their records too.
    ...[...resources, productRates, calendarImports].flatMap((resource) =>
      (Object.keys(verbs) as (keyof typeof verbs)[]).filter((op) => resource.operations.includes(op)).map((op) => `${resource.name}.${verbs[op]}`),
    ),
    'users.erased',
    // docs/selling.md "Events"
    'orders.confirmed',
    'orders.payment_mismatch',
    'orders.refund_required',
    'orders.cancelled',
    'orders.expired',
    // docs/calendars.md "Health"
    'calendars.conflict',
    'calendars.stale',
    'ping',
  ].sort(),
);

const known = new Set(eventNames);

export function isEventName(name: unknown): boolean {
  return typeof name === 'string' && known.has(name);
}
