import { erasureProblem } from './erasure-rule.js';
import type { FieldDef, ResourceSpec, RowOf, TypedResourceDef } from './types.js';

/** Fields every stored record carries; all are server-owned. */
export const commonFields: Readonly<Record<string, FieldDef>> = Object.freeze({
  _id: {
    type: 'string',
    description: 'Record identifier, assigned by the service (UUIDv7).',
    serverOwned: true,
    filterable: true,
    sortable: true,
    gdpr: 'pseudonymous',
  },
  tenant_id: {
    type: 'string',
    description: 'Tenant node that owns the record.',
    serverOwned: true,
    filterable: true,
    sortable: true,
    gdpr: 'pseudonymous',
  },
  created_at: {
    type: 'timestamp',
    description: 'Creation time (ISO 8601, UTC). Default sort key, newest first.',
    serverOwned: true,
    filterable: true,
    sortable: true,
    gdpr: 'none',
  },
  updated_at: {
    type: 'timestamp',
    description: 'Time of the last change (ISO 8601, UTC).',
    serverOwned: true,
    filterable: true,
    sortable: true,
    gdpr: 'none',
  },
});

/** Names that are never accepted from clients nor usable as resource fields. */
export const reservedColumns: readonly string[] = ['deleted_at', 'etag', 'path'];

/** Adds the common fields and defaults; the result is deeply frozen. */
export function defineResource<const S extends ResourceSpec>(spec: S): TypedResourceDef<S['table'], RowOf<S['fields']> & (S extends { tenancy: 'node' } ? { path: string } : unknown)> {
  for (const name of Object.keys(spec.fields)) {
    if (name in commonFields || reservedColumns.includes(name)) {
      throw new Error(`resource ${spec.name}: field "${name}" is reserved`);
    }
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      throw new Error(`resource ${spec.name}: field "${name}" is not snake_case`);
    }
    const field = spec.fields[name];
    const erasure = field && erasureProblem(field);
    if (erasure) throw new Error(`resource ${spec.name}: field "${name}": ${erasure}`);
  }
  const fields = { ...commonFields, ...spec.fields };
  for (const index of [...(spec.indexes ?? []), ...Object.values(spec.crossTenantIndexes ?? {})]) {
    // Bookkeeping columns may close an index (`deleted_at` lets SQLite cover a live-rows query).
    const unknown = index.find((name) => !(name in fields) && !reservedColumns.includes(name));
    if (unknown) throw new Error(`resource ${spec.name}: index names unknown field "${unknown}"`);
  }
  return deepFreeze({
    ...spec,
    softDelete: spec.softDelete ?? true,
    subOperations: spec.subOperations ?? [],
    fields,
    fieldNames: Object.keys(fields),
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
