import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * Which record a stored idempotent answer is about (`resource`, `record_id`), so erasure
 * finds the answers that carry a data subject's values and depersonalises them with the
 * record (`src/http/idempotency.ts`). Null for answers stored before, and for answers of
 * actions that concern no record.
 */
export function idempotencyAnswerRecordsMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await db.schema.alterTable('idempotency_keys').addColumn('resource', text).execute();
      await db.schema.alterTable('idempotency_keys').addColumn('record_id', text).execute();
      await db.schema.createIndex('idempotency_keys_record_idx').on('idempotency_keys').columns(['record_id', 'resource']).execute();
    },
  };
}
