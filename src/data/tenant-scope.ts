import { sql } from 'kysely';
import type { Expression, SqlBool } from 'kysely';
import type { ResourceDef } from '../registry/types.js';
import type { TenantScope } from '../security/principal.js';

/**
 * The row filter that confines a query to what a scope may see: its own node and the nodes
 * below it. `null` only for the system scope, which sees everything. Every query on a
 * resource table goes through here (see DESIGN.md rule 3).
 *
 * Deleted nodes below the scope stay in reach on purpose: no live record can remain in one
 * (cascade deny), but the audit trail of what happened there must stay visible above it.
 */
export function tenantFilter(resource: ResourceDef, scope: TenantScope, table = resource.table): Expression<SqlBool> | null {
  if (scope.nodeId === null) return null;
  const prefix = `${escapeLike(scope.path)}%`;
  if (resource.tenancy === 'node') return sql<SqlBool>`${sql.ref(`${table}.path`)} like ${prefix} escape '\\'`;
  if (scope.level === 'tenant') return sql<SqlBool>`${sql.ref(`${table}.tenant_id`)} = ${scope.nodeId}`;
  return sql<SqlBool>`${sql.ref(`${table}.tenant_id`)} in (select t._id from tenants t where t.path like ${prefix} escape '\\')`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
