import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources } from '../../../src/registry/index.js';
import { webhookDeliveries } from '../../../src/registry/sub-collections/webhook-deliveries.js';
import { webhookDeliveryAttempts } from '../../../src/registry/sub-collections/webhook-delivery-attempts.js';
import { findUnscopedQueries } from '../../support/unscoped-queries.js';

const root = join(import.meta.dirname, '../../..');
const resourceTables = new Set(resources.map((r) => r.table));

/**
 * The service's own tables that hold tenants' data. Outside src/data they are read through
 * the scoped builders (the two sub-collections are registry definitions, so
 * `ScopedQueries.scoped` applies the tenant filter to them), or only by the module that
 * owns the table, each declared here with the reason it may touch the table directly.
 */
const tenantOwnedTables: Readonly<Record<string, { readonly owners: readonly string[]; readonly reason: string }>> = {
  [webhookDeliveries.table]: {
    owners: ['src/webhooks/dispatcher.ts', 'src/webhooks/fan-out.ts', 'src/webhooks/webhook-queue.ts', 'src/webhooks/webhook-admin.ts', 'src/webhooks/delivery-retention.ts'],
    reason:
      "the dispatcher fans out (fan-out.ts), claims and records attempts for every tenant (a system worker), and the metrics report the queue depth (webhook-queue.ts); the admin retries and pings only after finding the webhook in the caller's scope, by that webhook's id (reads go through scoped(webhookDeliveries)); retention removes every tenant's finished old rows (a system job)",
  },
  [webhookDeliveryAttempts.table]: {
    owners: ['src/webhooks/dispatcher.ts', 'src/webhooks/delivery-retention.ts'],
    reason:
      'the dispatcher writes one row per attempt, in the transaction of the outcome; the list reads through scoped(webhookDeliveryAttempts); retention removes them with their delivery (a system job)',
  },
  webhook_received: {
    owners: ['src/webhooks/incoming.ts', 'src/webhooks/received-retention.ts'],
    reason:
      "keyed by webhook id: the receiver claims for the webhook the signature authenticated, the list reads after finding the webhook in the caller's scope, and retention sweeps every tenant's old rows (a system job)",
  },
  quotes: {
    owners: ['src/selling/quotes.ts'],
    reason:
      "keyed by an unguessable quote id: a quote is read only for its own tenant (the row's tenant_id must be the caller's), and the expiry sweep purges every tenant's expired quotes (a system job)",
  },
  calendar_feeds: {
    owners: ['src/calendars/feed-secrets.ts'],
    reason: "keyed by product: a rotation or a read names a product the caller's scoped query found first, and the public route finds a feed only by its secret's hash",
  },
  idempotency_keys: {
    owners: ['src/http/idempotency.ts'],
    reason: "keyed by the caller (client or user) and route, never by tenant: only the caller's own key is ever read",
  },
};

const checkedTables = new Set([...resourceTables, ...Object.keys(tenantOwnedTables)]);

/**
 * Where resource tables may be touched directly: the data layer that builds the scoped
 * queries and the write helpers, and the migrations that create the tables.
 */
const allowed = [/^src\/data\//, /^src\/db\/migrations\//];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|cts|mts)$/.test(entry.name) ? [path] : [];
  });
}

describe('every query on a resource table goes through the scope (docs/architecture.md "Rules we keep")', () => {
  it('no file outside src/data and the migrations calls selectFrom/updateTable/deleteFrom/insertInto on a resource table, nor on a tenant-owned service table outside its declared owners', () => {
    const files = [...sources('src'), ...sources('cli')].map((file) => relative(root, join(root, file)));
    expect(files.length).toBeGreaterThan(50);
    const violations = files
      .filter((file) => !allowed.some((pattern) => pattern.test(file)))
      .flatMap((file) => findUnscopedQueries(file, readFileSync(join(root, file), 'utf8'), checkedTables))
      .filter((found) => !(found.table !== undefined && tenantOwnedTables[found.table]?.owners.includes(found.file)))
      .map((v) => `${v.file}:${v.line} ${v.text} — use unit.scoped(resource) / the UnitOfWork write helpers, or asSystem() for a deliberate unscoped read`);
    expect(violations).toEqual([]);
  });

  it('covers every tenant-owned service table, and each declared owner exists and still touches its table', () => {
    expect(Object.keys(tenantOwnedTables).sort()).toEqual(['calendar_feeds', 'idempotency_keys', 'quotes', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_received']);
    for (const [table, { owners }] of Object.entries(tenantOwnedTables)) {
      for (const owner of owners) {
        const found = findUnscopedQueries(owner, readFileSync(join(root, owner), 'utf8'), new Set([table]));
        expect(found.filter((f) => f.table === table).length, `${owner} is declared an owner of ${table} but no longer touches it`).toBeGreaterThan(0);
      }
    }
  });

  it('a tenant-owned service table touched outside its owners is reported', () => {
    const source = [
      "db.selectFrom('webhook_received').selectAll();",
      "trx.updateTable('webhook_deliveries').set({});",
      "db.insertInto('webhook_delivery_attempts').values({});",
      "db.deleteFrom('idempotency_keys');",
    ].join('\n');
    const found = findUnscopedQueries('src/elsewhere.ts', source, checkedTables).filter((f) => !(f.table !== undefined && tenantOwnedTables[f.table]?.owners.includes(f.file)));
    expect(found.map((f) => f.table)).toEqual(['webhook_received', 'webhook_deliveries', 'webhook_delivery_attempts', 'idempotency_keys']);
  });

  it("the scanner finds literal resource tables, aliased ones and computed table names, and ignores the service's own tables", () => {
    const source = [
      "db.selectFrom('bookings').selectAll();",
      "trx.updateTable('api_clients as c').set({});",
      'db.deleteFrom(resource.table);',
      'trx.insertInto(`products`).values({});',
      "db.selectFrom('replay_cache').selectAll();",
      "db.insertInto('outbox_events').values({});",
      'unit.scoped(bookings).selectAll();',
    ].join('\n');
    const found = findUnscopedQueries('fixture.ts', source, resourceTables);
    expect(found.map((f) => f.line)).toEqual([1, 2, 3, 4]);
  });
});
