import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database, DialectName } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { openSqlite } from '../../src/db/sqlite.js';

/** The dialects every storage and API suite runs on. */
export const dialects: readonly DialectName[] = ['sqlite', 'postgres'];

/** A fresh PostgreSQL database URL inside the run's throwaway cluster. */
export async function freshPostgresUrl(): Promise<string> {
  const base = inject('postgresUrl');
  if (!base) throw new Error('the PostgreSQL cluster did not start (see global-setup)');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return base.replace(/\/[^/]*$/, `/${name}`);
}

/** Opens and migrates an empty database of the given dialect. */
export async function freshDatabase(dialect: DialectName, options: { statementTimeoutMs?: number; now?: () => number } = {}): Promise<Database> {
  const database =
    dialect === 'sqlite'
      ? openSqlite(':memory:', options)
      : openPostgres({ connectionString: await freshPostgresUrl(), poolSize: 25, statementTimeoutMs: options.statementTimeoutMs ?? 5000 });
  await migrateToLatest(database);
  return database;
}
