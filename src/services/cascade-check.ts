import { sql } from 'kysely';
import type { Db } from '../db/dialect.js';
import { childRelations, resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';

/**
 * Names of the resources that still hold live children of a record, which blocks its
 * deletion (cascade deny). A tenant node is also the parent of every record stored in it.
 */
export async function blockingChildren(trx: Db, resource: ResourceDef, id: string): Promise<string[]> {
  const checks: { name: string; table: string; column: string; softDelete: boolean }[] = childRelations(resource.name).map(({ resource: child, field }) => ({
    name: child.name,
    table: child.table,
    column: field,
    softDelete: child.softDelete,
  }));
  if (resource.tenancy === 'node') {
    for (const owned of resources) {
      if (owned.tenancy === 'owned' && owned.softDelete) checks.push({ name: owned.name, table: owned.table, column: 'tenant_id', softDelete: true });
    }
  }
  const blocking = new Set<string>();
  for (const check of checks) {
    let query = trx.selectFrom(check.table).select(sql<number>`1`.as('one')).where(sql.ref(check.column), '=', id);
    if (check.softDelete) query = query.where('deleted_at', 'is', null);
    const found = await query.limit(1).executeTakeFirst();
    if (found) blocking.add(check.name);
  }
  return [...blocking].sort();
}
