import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { addColumns } from '../migration-kit.js';

/**
 * GDPR: the consent's policy version, and the per-subject data keys that encrypt personal
 * values in the append-only audit trail (crypto-shredding: erasure destroys a subject's
 * keys, so its values in the trail can no longer be read; see `src/data/subject-keys.ts`).
 * Legal holds are looked up by the record they name.
 */
export function gdprMigration(dialect: SqlDialect): Migration {
  const type = (name: Parameters<SqlDialect['columnType']>[0]) => sql.raw(dialect.columnType(name));
  return {
    async up(db: Db) {
      await addColumns(db, dialect, 'consents', [['policy_version', 'string']]);
      await db.schema
        .createTable('subject_keys')
        .addColumn('_id', type('string'), (c) => c.primaryKey())
        .addColumn('subject_id', type('string'), (c) => c.notNull())
        // Base64 AES-256 key; null once destroyed by erasure.
        .addColumn('key', type('string'))
        .addColumn('created_at', type('timestamp'), (c) => c.notNull())
        .addColumn('destroyed_at', type('timestamp'))
        .execute();
      await db.schema.createIndex('subject_keys_subject_idx').on('subject_keys').columns(['subject_id']).execute();
      await db.schema.createIndex('legal_holds_record_idx').ifNotExists().on('legal_holds').columns(['record_id', 'resource']).execute();
    },
  };
}
