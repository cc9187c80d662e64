import { resources } from '../registry/index.js';

const verbs = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** Every event a webhook can subscribe to (CONTRACT.md "Outgoing webhooks"), sorted. */
export const eventNames: readonly string[] = Object.freeze(
  [
    ...resources.flatMap((resource) => (Object.keys(verbs) as (keyof typeof verbs)[]).filter((op) => resource.operations.includes(op)).map((op) => `${resource.name}.${verbs[op]}`)),
    'users.erased',
    // docs/selling.md "Events"
    'orders.confirmed',
    'orders.payment_mismatch',
    'orders.refund_required',
    'orders.cancelled',
    'orders.expired',
    'ping',
  ].sort(),
);

const known = new Set(eventNames);

export function isEventName(name: unknown): boolean {
  return typeof name === 'string' && known.has(name);
}
