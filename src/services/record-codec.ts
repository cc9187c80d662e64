import type { SqlDialect } from '../db/dialect.js';
import { storedFields } from '../db/schema.js';
import type { ResourceDef } from '../registry/types.js';

export type ApiRecord = Record<string, unknown>;

/** A stored row: the record's columns plus bookkeeping (`etag`, `deleted_at`, `path`). */
export type Row = Record<string, unknown>;

/** Turns a row into its API form: stored fields only, values decoded for the wire. */
export function rowToRecord(resource: ResourceDef, dialect: SqlDialect, row: Row): ApiRecord {
  const record: ApiRecord = {};
  for (const name of storedFields(resource)) {
    if (!(name in row)) continue;
    const field = resource.fields[name];
    if (field) record[name] = dialect.fromDb(field.type, row[name]);
  }
  return record;
}

/** Encodes API values for storage. */
export function recordToRow(resource: ResourceDef, dialect: SqlDialect, values: Readonly<Record<string, unknown>>): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field && !field.computed && !field.writeOnly) row[name] = dialect.toDb(field.type, value);
  }
  return row;
}
