/**
 * Compile-only Kysely instances (no connection) for golden-SQL tests of both dialects.
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Expression, RawBuilder, SqlBool } from 'kysely';
import type { DialectName, SqlDialect, Tables } from '../../../src/db/dialect.js';
import { postgresDialect } from '../../../src/db/postgres.js';
import { sqliteDialect } from '../../../src/db/sqlite.js';

const sqliteDb = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

const postgresDb = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The SQL dialect and compile-only database of each name. */
export const compileTargets: Readonly<Record<DialectName, { readonly dialect: SqlDialect; readonly db: Kysely<Tables> }>> = {
  sqlite: { dialect: sqliteDialect, db: sqliteDb },
  postgres: { dialect: postgresDialect, db: postgresDb },
};

/** SQL text and parameters of `select * from <table> where <filter> order by <sort>`. */
export function compileSelect(name: DialectName, table: string, where: Expression<SqlBool> | null, orderBy: readonly RawBuilder<unknown>[] = []): { sql: string; parameters: readonly unknown[] } {
  let query = compileTargets[name].db.selectFrom(table).selectAll();
  if (where) query = query.where(where);
  for (const item of orderBy) query = query.orderBy(item);
  const { sql, parameters } = query.compile();
  return { sql, parameters };
}
