import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { createIndex } from '../migration-kit.js';

/**
 * Erasure and the subject export (docs/gdpr.md) find a user's records in every tenant and
 * soft-deleted ones too: one index per table that references users, led by the reference and
 * over every row. Without it each of an erasure's batches scanned the whole table while it
 * held SQLite's one writer. The tables as of this migration (frozen, not today's registry).
 */
export function subjectIndexesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      for (const table of ['bookings', 'orders', 'subscriptions', 'consents']) {
        await createIndex(db, dialect, `${table}_user_id_subject_idx`, table, ['user_id', '_id'], false);
      }
    },
  };
}
