import { memoizeWeak } from '../lib/memoize-weak.js';
import type { FieldType, ResourceDef } from '../registry/types.js';
import { tenantIndexName } from './migration-kit.js';

/** Fields stored as columns (computed and write-only fields are not). */
export const storedFields: (resource: ResourceDef) => readonly string[] = memoizeWeak((resource) =>
  Object.freeze(
    resource.fieldNames.filter((name) => {
      const field = resource.fields[name];
      return field !== undefined && !field.computed && !field.writeOnly;
    }),
  ),
);

/** Columns worth an index: sort keys and references, each led by the tenant for scoped scans. */
export function indexedFields(resource: ResourceDef): readonly string[] {
  return resource.fieldNames.filter((name) => {
    const field = resource.fields[name];
    if (!field || name === '_id' || name === 'tenant_id') return false;
    return field.sortable === true || field.type === 'reference';
  });
}

/** Name and columns of each composite index the registry declares for a resource. */
export function compositeIndexes(resource: ResourceDef): readonly { name: string; columns: readonly string[] }[] {
  return (resource.indexes ?? []).map((fields) => ({
    name: `${resource.table}_live_${fields.join('_')}_idx`,
    columns: ['tenant_id', ...fields, '_id'],
  }));
}

/** A resource table as the registry says it must look after every migration ran. */
export interface ExpectedTable {
  readonly resource: string;
  readonly table: string;
  /** Column name → registry field type (bookkeeping columns included). */
  readonly columns: ReadonlyMap<string, FieldType>;
  readonly indexes: readonly string[];
}

/** The schema the registry implies: stored fields plus bookkeeping, tenant and composite indexes. */
export function expectedTable(resource: ResourceDef): ExpectedTable {
  const columns = new Map<string, FieldType>();
  for (const name of storedFields(resource)) columns.set(name, resource.fields[name]?.type ?? 'string');
  columns.set('etag', 'string');
  if (resource.softDelete) columns.set('deleted_at', 'timestamp');
  if (resource.tenancy === 'node') columns.set('path', 'string');
  const tenantIndexes = ['created_at', ...indexedFields(resource).filter((n) => n !== 'created_at')].map((c) => tenantIndexName(resource.table, c));
  return {
    resource: resource.name,
    table: resource.table,
    columns,
    indexes: [...tenantIndexes, ...compositeIndexes(resource).map((i) => i.name), ...Object.keys(resource.crossTenantIndexes ?? {}), ...subjectIndexes(resource).map((i) => i.name)],
  };
}

/**
 * A user's records in every tenant, soft-deleted ones too, by their reference to the user:
 * what erasure and the subject export read (docs/gdpr.md). Over every row, not led by the
 * tenant: one per field that references users, so a new such resource needs its index.
 */
export function subjectIndexes(resource: ResourceDef): readonly { name: string; columns: readonly string[] }[] {
  return resource.fieldNames.filter((name) => resource.fields[name]?.references === 'users').map((field) => ({ name: `${resource.table}_${field}_subject_idx`, columns: [field, '_id'] }));
}
