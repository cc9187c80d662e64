import { sql } from 'kysely';
import type { ScopedQueries } from '../data/scoped-queries.js';
import { childRelations, resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';

/**
 * Names of the resources that still hold live children of a record, which blocks its
 * deletion (cascade deny). A tenant node is also the parent of every record stored in it.
 * Children are looked for in every tenant (as the system): a child the caller cannot see
 * still blocks, and only the resource's name is revealed.
 */
export async function blockingChildren(queries: ScopedQueries, resource: ResourceDef, id: string): Promise<string[]> {
  const checks: { child: ResourceDef; column: string }[] = childRelations(resource.name).map(({ resource: child, field }) => ({ child, column: field }));
  if (resource.tenancy === 'node') {
    for (const owned of resources) if (owned.tenancy === 'owned' && owned.softDelete) checks.push({ child: owned, column: 'tenant_id' });
  }
  const system = queries.asSystem();
  const blocking = new Set<string>();
  for (const { child, column } of checks) {
    const found = await system
      .scoped(child)
      .select(sql<number>`1`.as('one'))
      .where(sql.ref(column), '=', id)
      .limit(1)
      .executeTakeFirst();
    if (found) blocking.add(child.name);
  }
  return [...blocking].sort();
}
