import { capabilities } from './capabilities.js';

/** Roles of end users (`users.role`). */
export type Role = 'guest' | 'staff' | 'admin';

const all = capabilities.map((c) => c.name);
const has = (prefixes: readonly string[]) => all.filter((name) => prefixes.some((prefix) => name.startsWith(prefix)));

/**
 * What a user token of each role may do, declared next to the actions and listed at
 * `/v1/capabilities`. Tenant scope still applies: a user acts in the user's own tenant.
 * - guest: read the catalogue and make and see bookings and orders.
 * - staff: run the day-to-day business: products, bookings, orders, charges,
 *   subscriptions, users (without sensitive fields), consents.
 * - admin: everything the registry offers, including API clients, webhooks, legal holds,
 *   retention and the audit trail; administrative writes also need TOTP (step-up).
 */
export const roleCapabilities: Readonly<Record<Role, readonly string[]>> = Object.freeze({
  guest: Object.freeze(['products:list', 'products:read', 'bookings:list', 'bookings:read', 'bookings:create', 'orders:list', 'orders:read', 'orders:create', 'orders:quote']),
  staff: Object.freeze(
    has(['products:', 'bookings:', 'orders:', 'service-charges:', 'subscriptions:', 'consents:', 'users:list', 'users:read', 'users:create', 'users:update']).filter(
      (name) => name.split(':').length === 2,
    ),
  ),
  admin: Object.freeze([...all]),
});

/**
 * Which records of its tenant a role reaches among those that reference a user (bookings,
 * orders, subscriptions, consents): `own` — only those naming the signed-in user (and the
 * user's own `users` record); `tenant` — all of them. Enforced in the data layer
 * (`src/data/tenant-scope.ts`), like tenant scope: a record out of reach answers 404.
 */
export type RecordReach = 'own' | 'tenant';

export const roleReach: Readonly<Record<Role, RecordReach>> = Object.freeze({ guest: 'own', staff: 'tenant', admin: 'tenant' });

export function isRole(value: unknown): value is Role {
  return value === 'guest' || value === 'staff' || value === 'admin';
}
