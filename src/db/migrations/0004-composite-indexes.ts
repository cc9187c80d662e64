import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { createIndex } from '../migration-kit.js';

/**
 * Composite, partial indexes over live rows (e.g. bookings by status and start time): a
 * filtered, sorted page then walks one index range and stops after the page, and the
 * total is counted from the index alone. Frozen as shipped; the registry's `indexes`
 * must list the same ones (checked by `schema-drift.ts`).
 */
const indexes: readonly { table: string; fields: readonly string[] }[] = [
  { table: 'bookings', fields: ['status', 'start_time'] },
  { table: 'bookings', fields: ['product_id', 'start_time'] },
  { table: 'orders', fields: ['status', 'start_time'] },
  { table: 'orders', fields: ['product_id', 'start_time'] },
];

export function compositeIndexMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      for (const { table, fields } of indexes) {
        await createIndex(db, dialect, `${table}_live_${fields.join('_')}_idx`, table, ['tenant_id', ...fields, '_id'], true);
      }
    },
  };
}
