import { sql } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';
import { memoizeWeak } from '../lib/memoize-weak.js';
import type { ResourceDef } from '../registry/types.js';

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

/** Creates a resource's table and indexes exactly as the registry describes them. */
export async function createResourceTable(db: Db, dialect: SqlDialect, resource: ResourceDef): Promise<void> {
  let builder = db.schema.createTable(resource.table).ifNotExists();
  for (const name of storedFields(resource)) {
    const field = resource.fields[name];
    if (!field) continue;
    builder = builder.addColumn(name, sql.raw(dialect.columnType(field.type)), (col) => (name === '_id' ? col.primaryKey() : col));
  }
  builder = builder.addColumn('etag', 'text', (col) => col.notNull());
  if (resource.softDelete) builder = builder.addColumn('deleted_at', sql.raw(dialect.columnType('timestamp')));
  if (resource.tenancy === 'node') builder = builder.addColumn('path', 'text', (col) => col.notNull().unique());
  await builder.execute();

  for (const name of ['created_at', ...indexedFields(resource).filter((n) => n !== 'created_at')]) {
    await createIndex(db, dialect, `${resource.table}_tenant_${name}_idx`, resource.table, ['tenant_id', name], false);
  }
}

/** An index whose columns sort like our queries do (see `SqlDialect.indexColumn`). */
async function createIndex(db: Db, dialect: SqlDialect, name: string, table: string, columns: readonly string[], liveOnly: boolean): Promise<void> {
  const list = sql.join(columns.map((column) => dialect.indexColumn(column)));
  const where = liveOnly ? sql` where deleted_at is null` : sql``;
  await sql`create index if not exists ${sql.id(name)} on ${sql.table(table)} (${list})${where}`.execute(db);
}

/** Name and columns of each composite index the registry declares for a resource. */
export function compositeIndexes(resource: ResourceDef): readonly { name: string; columns: readonly string[] }[] {
  return (resource.indexes ?? []).map((fields) => ({
    name: `${resource.table}_live_${fields.join('_')}_idx`,
    columns: ['tenant_id', ...fields, '_id'],
  }));
}

/** Creates the registry's composite indexes over live rows (partial: `deleted_at IS NULL`). */
export async function createCompositeIndexes(db: Db, dialect: SqlDialect, resource: ResourceDef): Promise<void> {
  for (const index of compositeIndexes(resource)) await createIndex(db, dialect, index.name, resource.table, index.columns, resource.softDelete);
}
