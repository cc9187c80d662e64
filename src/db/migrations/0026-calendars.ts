import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { addColumns, createFrozenTable, createIndex } from '../migration-kit.js';

/**
 * Calendars (docs/calendars.md): bookings learn where they came from (`source`, `api` for
 * every existing one) and, for a block, its import and its event's UID; imports are a
 * sub-collection of products; each product may have one secret export feed, whose secret
 * is kept sealed under the data key and found by its hash.
 */
export function calendarsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await db.schema
        .alterTable('bookings')
        .addColumn('source', sql.raw(dialect.columnType('string')), (c) => c.defaultTo('api'))
        .execute();
      await addColumns(db, dialect, 'bookings', [
        ['calendar_import_id', 'string'],
        ['external_uid', 'string'],
      ]);
      await createIndex(db, dialect, 'bookings_calendar_import_idx', 'bookings', ['calendar_import_id', 'external_uid'], true);
      await createFrozenTable(db, dialect, {
        table: 'calendar_imports',
        softDelete: true,
        path: false,
        columns: [
          ['_id', 'string'],
          ['tenant_id', 'string'],
          ['created_at', 'timestamp'],
          ['updated_at', 'timestamp'],
          ['product_id', 'string'],
          ['url', 'string'],
          ['name', 'string'],
          ['units', 'integer'],
          ['status', 'string'],
          ['last_synced_at', 'timestamp'],
          ['last_success_at', 'timestamp'],
          ['last_error', 'string'],
          ['events', 'integer'],
          ['skipped', 'integer'],
          ['conflicts', 'object'],
          ['stale_since', 'timestamp'],
        ],
        tenantIndexes: ['created_at', 'updated_at', 'last_synced_at'],
      });
      await createIndex(db, dialect, 'calendar_imports_product_idx', 'calendar_imports', ['product_id'], true);
      // The sync job's scan: imports of every tenant by when they last synced.
      await createIndex(db, dialect, 'calendar_imports_due_idx', 'calendar_imports', ['last_synced_at'], true);
      await db.schema
        .createTable('calendar_feeds')
        .addColumn('product_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text')
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
