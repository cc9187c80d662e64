import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * Stored answers of POST requests sent with an `Idempotency-Key` (see
 * `src/http/idempotency.ts`). One row per (principal and URL, key); the primary key makes
 * "first request wins" one atomic insert across instances. `expires_at` (ms) is the end of
 * the in-flight lease while the first request runs, then the end of the 24 h replay window.
 */
export function idempotencyKeysMigration(dialect: SqlDialect): Migration {
  const type = (name: Parameters<SqlDialect['columnType']>[0]) => sql.raw(dialect.columnType(name));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('scope', type('string'), (c) => c.notNull())
        .addColumn('key', type('string'), (c) => c.notNull())
        .addColumn('fingerprint', type('string'), (c) => c.notNull())
        .addColumn('state', type('string'), (c) => c.notNull())
        .addColumn('status', type('integer'))
        .addColumn('headers', type('object'))
        .addColumn('body', type('object'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
    },
  };
}
