import type { ResourceName } from '../../src/registry/index.js';
import { clientKeyPair } from './keys.js';

/** Ids of parent records a child body points at. */
export interface Parents {
  readonly productId: string;
  readonly userId: string;
}

/** A product body with every required field. */
export const productBody = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 } as const;

/** A valid time range for bookings and orders. */
export const timeRange = { start_time: '2026-12-01T10:00:00Z', end_time: '2026-12-02T10:00:00Z' } as const;

/**
 * The smallest valid create body of each writable resource (the fields docs/resources.md
 * flags *required*); children point at `parents`. A tenant body creates a child of the
 * caller's node.
 */
export function minimalBody(resource: ResourceName, parents: Parents): Record<string, unknown> {
  switch (resource) {
    case 'tenants':
      return { name: 'Child node' };
    case 'products':
      return { ...productBody };
    case 'users':
      return { email: 'guest@example.com' };
    case 'bookings':
    case 'orders':
      return { product_id: parents.productId, ...timeRange };
    case 'service-charges':
      return { product_id: parents.productId, amount: 12.5 };
    case 'subscriptions':
      return { product_id: parents.productId };
    case 'consents':
      return { user_id: parents.userId, purpose: 'marketing_email', granted: true };
    case 'api-clients':
      return { name: 'partner app', capabilities: ['products:list'], public_key: clientKeyPair().publicPem };
    case 'webhooks':
      return { url: 'https://hooks.example.com/in', events: ['bookings.created'] };
    case 'legal-holds':
      return { resource: 'products', record_id: parents.productId, reason: 'case 2026-17' };
    case 'retention-policies':
      return { category: 'data', retention_days: 30 };
    case 'product-rates':
      return { from: '2026-12-01', to: '2026-12-08', price: 90 };
    case 'calendar-imports':
      // Loopback's discard port: a sync fails at once, and no traffic leaves the machine
      // (the harness must allow http and 127.0.0.1: WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOWED_NETWORKS).
      return { url: 'http://127.0.0.1:9/listing/1.ics', name: 'Airbnb' };
    case 'audit-logs':
    case 'webhook-deliveries':
    case 'webhook-delivery-attempts':
      throw new Error(`${resource} are read-only`);
  }
}

/** A valid PATCH body of each writable resource (a mutable, non-sensitive field). */
export function patchBody(resource: ResourceName): Record<string, unknown> {
  const bodies: Record<Exclude<ResourceName, 'audit-logs' | 'webhook-deliveries' | 'webhook-delivery-attempts' | 'calendar-imports'>, Record<string, unknown>> = {
    tenants: { name: 'Renamed' },
    products: { name: 'Renamed' },
    users: { locale: 'de' },
    bookings: { quantity: 2 },
    orders: { status: 'confirmed' },
    'service-charges': { name: 'Cleaning' },
    subscriptions: { plan: 'gold' },
    'api-clients': { name: 'Renamed' },
    webhooks: { description: 'changed' },
    consents: { source: 'web' },
    'legal-holds': { reason: 'changed' },
    'retention-policies': { retention_days: 10 },
    'product-rates': { price: 95 },
  };
  if (resource === 'audit-logs' || resource === 'webhook-deliveries' || resource === 'webhook-delivery-attempts' || resource === 'calendar-imports')
    throw new Error(`${resource} are not changed by PATCH`);
  return bodies[resource];
}
