import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { addColumns } from '../migration-kit.js';

/**
 * Incoming webhooks: direction, signing scheme and source allowlist on `webhooks`, and the
 * received events, keyed by (webhook, sender's event id) so a duplicate is one atomic
 * conflict. Times are epoch milliseconds.
 */
export function incomingWebhooksMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await addColumns(db, dialect, 'webhooks', [
        ['direction', 'string'],
        ['scheme', 'string'],
        ['ip_allowlist', 'string_list'],
      ]);
      await sql`update webhooks set direction = 'outgoing' where direction is null`.execute(db);
      await db.schema
        .createTable('webhook_received')
        .addColumn('webhook_id', text, (c) => c.notNull())
        .addColumn('event_id', text, (c) => c.notNull())
        .addColumn('fingerprint', text, (c) => c.notNull())
        .addColumn('state', text, (c) => c.notNull())
        .addColumn('type', text)
        .addColumn('outcome', text)
        .addColumn('detail', text)
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_received_pk', ['webhook_id', 'event_id'])
        .execute();
      await db.schema.createIndex('webhook_received_time_idx').on('webhook_received').columns(['webhook_id', 'received_at']).execute();
    },
  };
}
