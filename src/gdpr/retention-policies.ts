import { sql } from 'kysely';
import type { ExpressionBuilder } from 'kysely';
import { appendOutbox, rewriteOutboxData } from '../data/outbox.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import type { ScopedSelect } from '../data/scoped-queries.js';
import { destroySubjectKeys } from '../data/subject-keys.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import type { Database, Db, SqlDialect, Tables } from '../db/dialect.js';
import { erasureChanges, hasPersonalFields } from '../derive/erasure.js';
import { notFound } from '../http/errors.js';
import { childRelations, findResource, getResource, resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { asSystem } from '../core/principal.js';
import type { Level, Principal } from '../core/principal.js';
import type { Clock } from '../core/clock.js';
import { withRowLock } from '../db/row-lock.js';
import { rowToRecord } from '../data/record-codec.js';
import type { Row } from '../data/record-codec.js';
import type { RequestContext } from '../core/request-context.js';
import type { ResourceService } from '../services/resource-service.js';
import { activeAt } from '../services/legal-holds.js';
import { holdsPersonalValues } from './personal-values.js';

const policies = getResource('retention-policies');
const auditLogs = getResource('audit-logs');
const tenants = getResource('tenants');
const legalHolds = getResource('legal-holds');
const bookingsResource = getResource('bookings');
const productsResource = getResource('products');

/** Audit categories a policy may name (see `src/data/audit-trail.ts`). */
export const auditCategories: readonly string[] = ['data', 'security'];

/** Resources whose records a retention policy may purge or anonymise. */
export function retainable(resource: ResourceDef): boolean {
  return resource.tenancy === 'owned' && resource.softDelete && !['legal-holds', 'retention-policies'].includes(resource.name);
}

/** Why a policy's `category`/`action` pair cannot work, or `undefined`. */
export function policyProblem(category: string, action: string): string | undefined {
  if (auditCategories.includes(category)) return action === 'delete' ? undefined : 'audit entries are append-only: only `delete` applies to an audit category';
  const resource = findResource(category);
  if (!resource || !retainable(resource)) return `must be an audit category (${auditCategories.join(', ')}) or one of: ${retainableNames().join(', ')}`;
  if (action === 'anonymize' && !hasPersonalFields(resource)) return `${category} holds no personal field to anonymize; use delete`;
  return undefined;
}

function retainableNames(): string[] {
  return resources.filter(retainable).map((r) => r.name);
}

interface Policy {
  readonly id: string;
  readonly tenantId: string | null;
  readonly category: string;
  readonly days: number;
  readonly action: 'delete' | 'anonymize';
}

function policyOf(row: Row): Policy {
  return {
    id: String(row._id),
    tenantId: (row.tenant_id as string | null) ?? null,
    category: String(row.category),
    days: Number(row.retention_days),
    action: row.action === 'anonymize' ? 'anonymize' : 'delete',
  };
}

/** The unscoped-but-confined principal a policy acts as: the system actor, scoped to the policy's node. */
async function policyPrincipal(queries: ScopedQueries, policy: Policy): Promise<Principal> {
  const system = asSystem();
  if (policy.tenantId === null) return system;
  const node = await queries.asSystem().scoped(tenants, { includeDeleted: true }).select(['level', 'path']).where('_id', '=', policy.tenantId).executeTakeFirst();
  if (!node) return { ...system, scope: { nodeId: policy.tenantId, level: 'tenant', path: `/${policy.tenantId}/#none` } };
  return { ...system, scope: { nodeId: policy.tenantId, level: node.level as Level, path: String(node.path) } };
}

/** `created_at` before which records fall under the policy. */
function cutoffOf(policy: Policy, now: number, queries: ScopedQueries): unknown {
  return queries.dialect.toDb('timestamp', new Date(now - policy.days * 86_400_000).toISOString());
}

/** Records past retention that the policy would still change, before holds (aliased `r`). */
function candidates(queries: ScopedQueries, policy: Policy, now: number): { resource: ResourceDef; select: ScopedSelect } {
  const cutoff = cutoffOf(policy, now, queries);
  if (auditCategories.includes(policy.category)) {
    return { resource: auditLogs, select: queries.scoped(auditLogs, { as: 'r' }).where('r.category', '=', policy.category).where('r.created_at', '<', cutoff) };
  }
  const resource = findResource(policy.category) ?? auditLogs;
  // Soft-deleted rows too: the API no longer shows them, but their values are still stored.
  let select = queries.scoped(resource, { as: 'r', includeDeleted: true }).where('r.created_at', '<', cutoff);
  if (policy.action === 'delete') {
    // Cascade deny still holds: a record others reference stays until they are gone.
    for (const { resource: child, field } of childRelations(resource.name)) {
      select = select.where(({ not, exists }) =>
        not(
          exists(
            queries
              .asSystem()
              .scoped(child, { includeDeleted: true })
              .select(sql<number>`1`.as('one'))
              .where(sql.ref(`${child.table}.${field}`), '=', sql.ref('r._id')),
          ),
        ),
      );
    }
  } else {
    select = select.where(holdsPersonalValues(resource, 'r'));
  }
  return { resource, select };
}

/** "An active hold covers row `r`": on the record itself, on the user it references, or (audit) on the entry or its record. */
function heldCondition(queries: ScopedQueries, resource: ResourceDef, now: number) {
  return (eb: ExpressionBuilder<Tables, string>) => {
    const pairs = (h: ExpressionBuilder<Tables, string>) => {
      if (resource === auditLogs) {
        return h.or([
          h.and([h('h.resource', '=', h.ref('r.resource')), h('h.record_id', '=', h.ref('r.record_id'))]),
          h.and([h('h.resource', '=', 'audit-logs'), h('h.record_id', '=', h.ref('r._id'))]),
        ]);
      }
      const userRefs = resource.fieldNames.filter((name) => resource.fields[name]?.references === 'users');
      return h.or([
        h.and([h('h.resource', '=', resource.name), h('h.record_id', '=', h.ref('r._id'))]),
        ...userRefs.map((name) => h.and([h('h.resource', '=', 'users'), h('h.record_id', '=', h.ref(`r.${name}`))])),
      ]);
    };
    return eb.exists(
      queries
        .asSystem()
        .scoped(legalHolds, { as: 'h' })
        .select(sql<number>`1`.as('one'))
        .where(activeAt(queries, now, 'h'))
        .where(pairs),
    );
  };
}

/** `{ due, held }` of a policy at `now`, without changing anything. */
async function countPolicy(db: Db, dialect: SqlDialect, policy: Policy, now: number): Promise<{ due: number; held: number }> {
  const scoped = new ScopedQueries(db, dialect, await policyPrincipal(new ScopedQueries(db, dialect, asSystem()), policy));
  const { resource, select } = candidates(scoped, policy, now);
  const held = heldCondition(scoped, resource, now);
  const row = await select.select((eb) => [eb.fn.countAll<number>().as('total'), eb.fn.sum<number>(eb.case().when(held(eb)).then(1).else(0).end()).as('held')]).executeTakeFirst();
  const total = Number(row?.total ?? 0);
  const heldCount = Number(row?.held ?? 0);
  return { due: total - heldCount, held: heldCount };
}

/** `GET /v1/retention-policies/{id}/preview`. */
export async function retentionPreview(service: ResourceService, context: RequestContext, id: string): Promise<{ due: number; held: number }> {
  return service.work(context, async (unit) => {
    const row = await unit.find(policies, id);
    if (!row) throw notFound(policies.name);
    return countPolicy(unit.trx, unit.dialect, policyOf(row), unit.now);
  });
}

/** What one run did to one policy. */
export interface PolicyRun {
  readonly policy: string;
  readonly category: string;
  readonly action: 'delete' | 'anonymize';
  readonly processed: number;
  readonly held: number;
}

const systemContext: RequestContext = { principal: asSystem(), clientIp: null, requestId: null };

/**
 * Applies every retention policy once (the background retention job and `cli retention
 * run`): records past retention are purged (`delete`, soft-deleted rows included) or
 * depersonalised by the erasure rules (`anonymize`), in batches of one short transaction
 * each, skipping records under an active legal hold; each batch is audited with counts.
 * `dryRun` only counts.
 */
export async function applyRetentionPolicies(database: Database, clock: Clock, options: { dryRun?: boolean; batchSize?: number } = {}): Promise<PolicyRun[]> {
  const batchSize = options.batchSize ?? 500;
  const now = clock.now();
  const fixed: Clock = { now: () => now };
  const rows = (await new ScopedQueries(database.db, database.dialect, asSystem()).scoped(policies).selectAll().orderBy('_id').execute()) as Row[];
  const runs: PolicyRun[] = [];
  for (const policy of rows.map(policyOf)) {
    if (policyProblem(policy.category, policy.action)) continue;
    const principal = await policyPrincipal(new ScopedQueries(database.db, database.dialect, asSystem()), policy);
    const counted = await countPolicy(database.db, database.dialect, policy, now);
    if (options.dryRun) {
      runs.push({ policy: policy.id, category: policy.category, action: policy.action, processed: counted.due, held: counted.held });
      continue;
    }
    let processed = 0;
    for (;;) {
      const done = await runUnitOfWork(database, fixed, { ...systemContext, principal }, (unit) => applyBatch(unit, policy, now, batchSize));
      processed += done;
      if (done < batchSize) break;
    }
    runs.push({ policy: policy.id, category: policy.category, action: policy.action, processed, held: counted.held });
  }
  return runs;
}

async function applyBatch(unit: UnitOfWork, policy: Policy, now: number, batchSize: number): Promise<number> {
  const { resource, select } = candidates(unit, policy, now);
  const due = (await select
    .selectAll('r')
    .where((eb) => eb.not(heldCondition(unit, resource, now)(eb)))
    .orderBy('r._id')
    .limit(batchSize)
    .execute()) as Row[];
  if (due.length === 0) return 0;
  const ids = due.map((row) => String(row._id));
  const auditId = await unit.audit({
    category: resource === auditLogs ? 'security' : 'data',
    action: policy.action === 'delete' ? 'retention_purged' : 'retention_anonymized',
    resource: resource === auditLogs ? 'audit-logs' : resource.name,
    recordId: null,
    tenantId: policy.tenantId,
    oldValues: null,
    newValues: { policy: policy.id, category: policy.category, count: ids.length },
  });
  if (policy.action === 'delete') {
    if (resource.name === 'bookings') await lockBookingsAndProducts(unit, ids);
    if (resource.operations.includes('delete')) await announceDeletes(unit, resource, due, auditId);
    await unit.purge(resource, ids);
  } else {
    for (const row of due) {
      const changes = erasureChanges(resource, rowToRecord(resource, unit.dialect, row));
      if (Object.keys(changes).length > 0)
        await unit.update(resource, row, String(row.etag), changes, { action: 'anonymize', audit: { old: null, new: { erased_fields: Object.keys(changes).sort(), policy: policy.id } } });
    }
    await rewriteOutboxData(unit.trx, unit.dialect, resource.name, ids, (data) => ({ ...data, ...erasureChanges(resource, data) }));
  }
  // A user is its own data subject; other records without a user are `<resource>/<id>`.
  if (resource !== auditLogs)
    await destroySubjectKeys(
      unit.trx,
      unit.dialect,
      ids.map((id) => (resource.name === 'users' ? id : `${resource.name}/${id}`)),
      now,
    );
  return ids.length;
}

/**
 * A purge of bookings frees units like a booking delete, so it locks as every booking write
 * does (docs/architecture.md "Lock order"): the bookings first, in id order, then their
 * products, in id order. A capacity refusal's two reads then cannot straddle the purge,
 * and the purge cannot wait on a booking write in a cycle (PostgreSQL; SQLite runs one
 * writer at a time).
 */
async function lockBookingsAndProducts(unit: UnitOfWork, ids: readonly string[]): Promise<void> {
  const system = unit.asSystem();
  const locked = (await withRowLock(
    system
      .scoped(bookingsResource, { includeDeleted: true })
      .select(['_id', 'product_id'])
      .where('_id', 'in', [...ids])
      .orderBy('_id'),
    unit.dialect,
    'update',
  ).execute()) as Row[];
  const productIds = [...new Set(locked.map((row) => String(row.product_id)))].sort();
  if (productIds.length === 0) return;
  await withRowLock(system.scoped(productsResource, { includeDeleted: true }).select('_id').where('_id', 'in', productIds).orderBy('_id'), unit.dialect, 'update').execute();
}

/**
 * One `<resource>.deleted` event per purged record the API still showed (docs/webhooks.md
 * "Outgoing": exactly one event per committed change), carrying its last state and the
 * batch's audit entry. A record soft-deleted earlier announced its deletion then; its purge
 * is not news.
 */
async function announceDeletes(unit: UnitOfWork, resource: ResourceDef, rows: readonly Row[], auditId: string): Promise<void> {
  for (const row of rows) {
    if (row.deleted_at !== null && row.deleted_at !== undefined) continue;
    const data = rowToRecord(resource, unit.dialect, row);
    await appendOutbox(
      unit.trx,
      unit.dialect,
      { type: `${resource.name}.deleted`, resource: resource.name, recordId: String(row._id), tenantId: (row.tenant_id as string | null) ?? null, data, auditId },
      unit.now,
    );
  }
}
