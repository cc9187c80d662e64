import type { ResourceDef, ResourceName, StoredRow } from './types.js';
import { apiClients } from './resources/api-clients.js';
import { auditLogs } from './resources/audit-logs.js';
import { bookings } from './resources/bookings.js';
import { consents } from './resources/consents.js';
import { legalHolds } from './resources/legal-holds.js';
import { orders } from './resources/orders.js';
import { products } from './resources/products.js';
import { retentionPolicies } from './resources/retention-policies.js';
import { serviceCharges } from './resources/service-charges.js';
import { subscriptions } from './resources/subscriptions.js';
import { tenants } from './resources/tenants.js';
import { users } from './resources/users.js';
import { webhooks } from './resources/webhooks.js';

export type { ResourceDef, ResourceName } from './types.js';

/** Every resource, in the order they are documented and migrated (parents first). */
export const resources: readonly ResourceDef[] = Object.freeze([
  tenants,
  products,
  users,
  bookings,
  orders,
  serviceCharges,
  subscriptions,
  apiClients,
  webhooks,
  consents,
  legalHolds,
  retentionPolicies,
  auditLogs,
]);

const byName = new Map<string, ResourceDef>(resources.map((r) => [r.name, r]));

/** Looks a resource up by its path name; `undefined` for anything else. */
export function findResource(name: string): ResourceDef | undefined {
  return byName.get(name);
}

/** The 13 resources by name, each with its row type (`RowOf`, `types.ts`). */
interface TypedResources {
  tenants: typeof tenants;
  products: typeof products;
  users: typeof users;
  bookings: typeof bookings;
  orders: typeof orders;
  'service-charges': typeof serviceCharges;
  subscriptions: typeof subscriptions;
  'api-clients': typeof apiClients;
  webhooks: typeof webhooks;
  consents: typeof consents;
  'legal-holds': typeof legalHolds;
  'retention-policies': typeof retentionPolicies;
  'audit-logs': typeof auditLogs;
}

/** Rows of the tables the booking core and selling read most, as Kysely returns them. */
export type ProductRow = StoredRow<TypedResources['products']>;
export type BookingRow = StoredRow<TypedResources['bookings']>;
export type OrderRow = StoredRow<TypedResources['orders']>;

/** The resource of a known name (throws on a programming error); one of the 13 comes with its row type. */
export function getResource<N extends ResourceName>(name: N): N extends keyof TypedResources ? TypedResources[N] : ResourceDef;
export function getResource(name: ResourceName): ResourceDef {
  const def = byName.get(name);
  if (!def) throw new Error(`unknown resource ${name}`);
  return def;
}

/** Resources whose fields reference `parent` — the cascade-deny children. */
export function childRelations(parent: ResourceName): readonly { resource: ResourceDef; field: string }[] {
  return relationsByParent.get(parent) ?? [];
}

const relationsByParent = new Map<ResourceName, { resource: ResourceDef; field: string }[]>();
for (const resource of resources) {
  for (const [field, def] of Object.entries(resource.fields)) {
    if (!def.references) continue;
    if (!byName.has(def.references)) throw new Error(`${resource.name}.${field} references unknown ${def.references}`);
    const list = relationsByParent.get(def.references) ?? [];
    list.push({ resource, field });
    relationsByParent.set(def.references, list);
  }
}
for (const resource of resources) {
  for (const [field, def] of Object.entries(resource.fields)) {
    if (def.valuesOf === undefined) continue;
    if (def.type !== 'object' || resource.fields[def.valuesOf]?.type !== 'string') throw new Error(`${resource.name}.${field}: valuesOf needs an object field and a string field naming the resource`);
  }
}
if (resources.length !== 13) throw new Error('the service exposes exactly 13 resources');
