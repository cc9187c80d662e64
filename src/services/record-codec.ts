import type { SqlDialect } from '../db/dialect.js';
import { storedFields } from '../db/schema.js';
import { memoizeWeak } from '../lib/memoize-weak.js';
import type { FieldType, ResourceDef } from '../registry/types.js';

export type ApiRecord = Record<string, unknown>;

/** A stored row: the record's columns plus bookkeeping (`etag`, `deleted_at`, `path`). */
export type Row = Record<string, unknown>;

/** Turns a row into its API form: stored fields only, values decoded for the wire. */
export function rowToRecord(resource: ResourceDef, dialect: SqlDialect, row: Row): ApiRecord {
  const record: ApiRecord = {};
  for (const [name, type] of storedColumns(resource)) if (name in row) record[name] = dialect.fromDb(type, row[name]);
  return record;
}

/** Each stored field with its type, worked out once per resource (read on every record). */
const storedColumns: (resource: ResourceDef) => readonly (readonly [string, FieldType])[] = memoizeWeak((resource) =>
  Object.freeze(storedFields(resource).flatMap((name) => {
    const field = resource.fields[name];
    return field ? [Object.freeze([name, field.type] as const)] : [];
  })),
);

/** Encodes API values for storage. */
export function recordToRow(resource: ResourceDef, dialect: SqlDialect, values: Readonly<Record<string, unknown>>): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field && !field.computed && !field.writeOnly) row[name] = dialect.toDb(field.type, value);
  }
  return row;
}
