import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/** Leases of background jobs: one runner per job and interval across every instance (`src/services/job-lease.ts`). */
export function jobLeasesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await db.schema
        .createTable('job_leases')
        .addColumn('job', sql.raw(dialect.columnType('string')), (c) => c.primaryKey())
        .addColumn('holder', sql.raw(dialect.columnType('string')), (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
