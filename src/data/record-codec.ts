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
  const { names, types } = storedColumns(resource);
  // Index loops: this runs for every record read, and destructuring pairs would iterate.
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (name in row) record[name] = dialect.fromDb(types[i] as FieldType, row[name]);
  }
  return record;
}

/** The stored fields and their types, worked out once per resource (read on every record). */
const storedColumns: (resource: ResourceDef) => { readonly names: readonly string[]; readonly types: readonly FieldType[] } = memoizeWeak((resource) => {
  const names = storedFields(resource).filter((name) => resource.fields[name] !== undefined);
  return Object.freeze({ names: Object.freeze(names), types: Object.freeze(names.map((name) => resource.fields[name]?.type ?? 'string')) });
});

/** Encodes API values for storage. */
export function recordToRow(resource: ResourceDef, dialect: SqlDialect, values: Readonly<Record<string, unknown>>): Row {
  const row: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const field = resource.fields[name];
    if (field && !field.computed && !field.writeOnly) row[name] = dialect.toDb(field.type, value);
  }
  return row;
}
