import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * The transactional outbox: one row per committed change, written in the change's own
 * transaction (see `src/data/outbox.ts`). `dispatched_at` stays null until a dispatcher
 * has handed the event on; the partial index keeps finding pending events cheap.
 */
export function outboxMigration(dialect: SqlDialect): Migration {
  const type = (name: Parameters<SqlDialect['columnType']>[0]) => sql.raw(dialect.columnType(name));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('outbox_events')
        .addColumn('_id', type('string'), (c) => c.primaryKey())
        .addColumn('created_at', type('timestamp'), (c) => c.notNull())
        .addColumn('tenant_id', type('string'))
        .addColumn('type', type('string'), (c) => c.notNull())
        .addColumn('resource', type('string'), (c) => c.notNull())
        .addColumn('record_id', type('string'), (c) => c.notNull())
        .addColumn('audit_id', type('string'), (c) => c.notNull())
        .addColumn('data', type('object'), (c) => c.notNull())
        .addColumn('dispatched_at', type('timestamp'))
        .execute();
      await sql`create index outbox_events_pending_idx on outbox_events (_id) where dispatched_at is null`.execute(db);
    },
  };
}
