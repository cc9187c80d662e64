import { sql } from 'kysely';
import type { FieldType } from '../registry/types.js';
import type { Db, SqlDialect } from './dialect.js';

/**
 * The building blocks migrations use. A migration states its tables and columns as frozen
 * data, never derived from today's registry: a field added later then reaches existing
 * databases through a migration of its own, exactly like fresh ones (see
 * `schema-drift.ts`, which fails the boot and the test suite when the two disagree).
 */

/** A column as a migration created it: name and registry field type (the dialect maps the type). */
export type FrozenColumn = readonly [name: string, type: FieldType];

/** A resource table as one migration created it. */
export interface FrozenTable {
  readonly table: string;
  /** `_id` first: it becomes the primary key. */
  readonly columns: readonly FrozenColumn[];
  /** Rows are soft-deleted (`deleted_at`). */
  readonly softDelete: boolean;
  /** The table is the tenant hierarchy and stores each node's materialised path. */
  readonly path: boolean;
  /** Columns indexed as `(tenant_id, column)`, named `<table>_tenant_<column>_idx`. */
  readonly tenantIndexes: readonly string[];
}

/** Creates a resource table with its bookkeeping columns (`etag`, `deleted_at`, `path`) and tenant indexes. */
export async function createFrozenTable(db: Db, dialect: SqlDialect, spec: FrozenTable): Promise<void> {
  let builder = db.schema.createTable(spec.table);
  for (const [name, type] of spec.columns) {
    builder = builder.addColumn(name, sql.raw(dialect.columnType(type)), (col) => (name === '_id' ? col.primaryKey() : col));
  }
  builder = builder.addColumn('etag', 'text', (col) => col.notNull());
  if (spec.softDelete) builder = builder.addColumn('deleted_at', sql.raw(dialect.columnType('timestamp')));
  if (spec.path) builder = builder.addColumn('path', 'text', (col) => col.notNull().unique());
  await builder.execute();
  for (const column of spec.tenantIndexes) await createIndex(db, dialect, tenantIndexName(spec.table, column), spec.table, ['tenant_id', column], false);
}

/** Adds columns to an existing table (nullable: existing rows read them as unset). */
export async function addColumns(db: Db, dialect: SqlDialect, table: string, columns: readonly FrozenColumn[]): Promise<void> {
  for (const [name, type] of columns)
    await db.schema
      .alterTable(table)
      .addColumn(name, sql.raw(dialect.columnType(type)))
      .execute();
}

/** Name of the `(tenant_id, column)` index of a table. */
export function tenantIndexName(table: string, column: string): string {
  return `${table}_tenant_${column}_idx`;
}

/**
 * An index whose columns sort like our queries do (see `SqlDialect.indexColumn`);
 * `liveOnly` makes it partial over rows that are not soft-deleted.
 */
export async function createIndex(db: Db, dialect: SqlDialect, name: string, table: string, columns: readonly string[], liveOnly: boolean): Promise<void> {
  const list = sql.join(columns.map((column) => dialect.indexColumn(column)));
  const where = liveOnly ? sql` where deleted_at is null` : sql``;
  await sql`create index if not exists ${sql.id(name)} on ${sql.table(table)} (${list})${where}`.execute(db);
}
