import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * The audit trail is append-only in storage, not only in the API: updates are refused
 * and deletes are refused outside a retention purge. Index for retention and export.
 */
export function auditMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await dialect.protectAppendOnly(db, 'audit_logs');
      await db.schema.createIndex('audit_logs_category_created_idx').ifNotExists().on('audit_logs').columns(['category', 'created_at']).execute();
    },
  };
}
