import type { SqlDialect } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import type { TenantScope } from '../security/principal.js';
import type { Db } from '../db/dialect.js';
import { tenantFilter } from './tenant-scope.js';

const tenants = getResource('tenants');

/**
 * Every reference in `values` must name a live record the caller can see, and the tenant
 * node the write acts in must still be live. The parent rows (the node included) are
 * share-locked, so a concurrent delete of a parent waits for this write and then finds the
 * new child; after a delete that won, the write is refused instead of leaving an orphan.
 */
export async function checkReferences(trx: Db, dialect: SqlDialect, resource: ResourceDef, scope: TenantScope, values: Readonly<Record<string, unknown>>): Promise<void> {
  await checkActingNode(trx, dialect, scope);
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (!field?.references || typeof value !== 'string') continue;
    const parent = getResource(field.references);
    let query = trx.selectFrom(parent.table).select('_id').where('_id', '=', value).where('deleted_at', 'is', null);
    const scoped = tenantFilter(parent, scope);
    if (scoped) query = query.where(scoped);
    const found = await withRowLock(query, dialect, 'share').executeTakeFirst();
    if (!found) errors.push({ field: name, message: `does not name an existing ${parent.name} record` });
  }
  if (errors.length > 0) throw validationError(errors);
}

/**
 * The scope was resolved (and may be cached) before the transaction began; a node deleted
 * since then must not receive records. The root node `system` is never deleted.
 */
async function checkActingNode(trx: Db, dialect: SqlDialect, scope: TenantScope): Promise<void> {
  if (scope.nodeId === null) return;
  const query = trx.selectFrom(tenants.table).select('_id').where('_id', '=', scope.nodeId).where('deleted_at', 'is', null);
  const live = await withRowLock(query, dialect, 'share').executeTakeFirst();
  if (!live) throw validationError([{ field: 'X-Tenant-Id', message: 'the tenant node this request acts in no longer exists' }]);
}
