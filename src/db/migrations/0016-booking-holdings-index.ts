import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { createIndex } from '../migration-kit.js';

/**
 * The holdings query (`src/booking/holdings.ts`) reads a product's bookings of every
 * tenant, so the tenant-led indexes cannot serve it: without this one it scanned the whole
 * table (SQLite) or every booking of the time window (PostgreSQL). Covering, live rows only.
 */
export function bookingHoldingsIndexMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await createIndex(db, dialect, 'bookings_holdings_idx', 'bookings', ['product_id', 'start_time', 'end_time', 'status', 'quantity', '_id'], true);
    },
  };
}
