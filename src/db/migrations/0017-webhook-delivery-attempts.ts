import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * One row per delivery attempt (as Svix keeps them), written in the transaction that
 * records the attempt's outcome on its delivery. Columns are typed like the registry's
 * (`registry/sub-collections/webhook-delivery-attempts.ts`), so the list query language
 * applies; `created_at` is when the attempt started, `updated_at` when it finished.
 * Numbered 0017: 0015 and 0016 are taken by features developed alongside.
 */
export function webhookDeliveryAttemptsMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  const timestamp = sql.raw(dialect.columnType('timestamp'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('webhook_delivery_attempts')
        .addColumn('_id', text, (c) => c.primaryKey())
        .addColumn('tenant_id', text)
        .addColumn('webhook_id', text, (c) => c.notNull())
        .addColumn('delivery_id', text, (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', text)
        .addColumn('started_at', timestamp, (c) => c.notNull())
        .addColumn('finished_at', timestamp, (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_delivery_attempts_delivery_idx').on('webhook_delivery_attempts').columns(['delivery_id', 'attempt']).execute();
    },
  };
}
