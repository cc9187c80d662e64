import { sql } from 'kysely';
import type { Expression, SqlBool } from 'kysely';
import type { ResourceDef } from '../registry/types.js';
import type { Principal, TenantScope } from '../core/principal.js';

/**
 * The row filter that confines a query to what a scope may see: its own node and the nodes
 * below it. `null` only for the system scope, which sees everything. Every query on a
 * resource table goes through here (see docs/architecture.md "Rules we keep").
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

/** The fields of a resource that name a user: a record "belongs" to the users they name. */
export function userReferences(resource: ResourceDef): readonly string[] {
  return resource.fieldNames.filter((name) => resource.fields[name]?.references === 'users');
}

/**
 * The row filter of a principal that reaches only its own records (a guest user): on
 * `users`, the user itself; on a resource that references users, the rows naming the user;
 * `null` for every other principal and resource (the catalogue stays visible).
 */
export function ownerFilter(resource: ResourceDef, principal: Principal, table = resource.table): Expression<SqlBool> | null {
  const owner = principal.ownRecordsOf;
  if (owner === undefined) return null;
  if (resource.name === 'users') return sql<SqlBool>`${sql.ref(`${table}._id`)} = ${owner}`;
  const fields = userReferences(resource);
  if (fields.length === 0) return null;
  return sql<SqlBool>`(${sql.join(fields.map((field) => sql`${sql.ref(`${table}.${field}`)} = ${owner}`), sql` or `)})`;
}
