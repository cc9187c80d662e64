import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * Outgoing webhook deliveries and signing secrets. Secrets live apart from the webhook
 * records (encrypted under the data key), so no read, list, export or audit entry of a
 * webhook can carry one. Delivery columns are typed like the registry's
 * (`registry/sub-collections/webhook-deliveries.ts`), so the list query language applies;
 * `previous_until` is epoch milliseconds.
 */
export function webhooksMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  const timestamp = sql.raw(dialect.columnType('timestamp'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('webhook_secrets')
        .addColumn('webhook_id', text, (c) => c.primaryKey())
        .addColumn('secret', text, (c) => c.notNull())
        .addColumn('previous', text)
        .addColumn('previous_until', 'bigint')
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('_id', text, (c) => c.primaryKey())
        .addColumn('tenant_id', text)
        .addColumn('webhook_id', text, (c) => c.notNull())
        .addColumn('event_id', text, (c) => c.notNull())
        .addColumn('type', text, (c) => c.notNull())
        .addColumn('payload', text, (c) => c.notNull())
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', text)
        .addColumn('next_attempt_at', timestamp)
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_webhook_idx').on('webhook_deliveries').columns(['webhook_id', 'created_at']).execute();
    },
  };
}
