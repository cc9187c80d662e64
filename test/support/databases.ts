import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database, DialectName } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { openSqlite } from '../../src/db/sqlite.js';

/** The dialects every storage and API suite runs on. */
export const dialects: readonly DialectName[] = ['sqlite', 'postgres'];

/** Creates a database in the cluster at `base` (a copy of `template` when given, or with `options` such as `lc_ctype 'C.UTF-8'`) and returns its URL. */
async function createDatabase(base: string, name: string, template?: string, options = ''): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}${options ? ` ${options}` : ''}`);
  } finally {
    await admin.end();
  }
  return base.replace(/\/[^/]*$/, `/${name}`);
}

function clusterUrl(): string {
  const base = inject('postgresUrl');
  if (!base) throw new Error('the PostgreSQL cluster did not start (see global-setup)');
  return base;
}

/**
 * A fresh PostgreSQL database URL inside the run's throwaway cluster: empty, or with
 * `migrated` a copy of the run's migrated template; with `ctype`, an empty UTF-8 database
 * whose LC_CTYPE is `ctype` (collation C, like the cluster's).
 */
export function freshPostgresUrl(options: { ctype?: string; migrated?: boolean } = {}): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  if (options.migrated === true) return createDatabase(clusterUrl(), name, inject('postgresTemplate'));
  if (options.ctype === undefined) return createDatabase(clusterUrl(), name);
  return createDatabase(clusterUrl(), name, 'template0', `encoding 'UTF8' lc_collate 'C' lc_ctype '${options.ctype}'`);
}

/**
 * Migrates a database named `name` in the cluster at `base` once per run (global set-up), so
 * each test's database is a copy of it: copying takes a fraction of the time that running
 * every migration again does. No connection may stay open on it, or the copies fail.
 */
export async function createMigratedTemplate(base: string, name: string): Promise<void> {
  const database = openPostgres({ connectionString: await createDatabase(base, name), poolSize: 1, statementTimeoutMs: 60_000 });
  try {
    await migrateToLatest(database);
  } finally {
    await database.close();
  }
}

/** How a test database is opened. */
export interface DatabaseOptions {
  readonly statementTimeoutMs?: number;
  readonly now?: () => number;
  readonly sqliteFile?: string;
  /** An existing PostgreSQL database (from `freshPostgresUrl`) instead of a new copy of the template. */
  readonly postgresUrl?: string;
}

/**
 * Opens an empty database of the given dialect, migrated: SQLite runs the migrations, a
 * PostgreSQL database starts as a copy of the run's migrated template. `migrateToLatest`
 * still runs on it, finds nothing to apply and checks the schema against the registry.
 */
export async function freshDatabase(dialect: DialectName, options: DatabaseOptions = {}): Promise<Database> {
  const database =
    dialect === 'sqlite'
      ? openSqlite(options.sqliteFile ?? ':memory:', options)
      : openPostgres({
          connectionString: options.postgresUrl ?? (await freshPostgresUrl({ migrated: true })),
          poolSize: 25,
          statementTimeoutMs: options.statementTimeoutMs ?? 5000,
        });
  await migrateToLatest(database);
  return database;
}
