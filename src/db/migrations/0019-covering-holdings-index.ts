import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { createIndex } from '../migration-kit.js';

/** The holdings index's columns: `deleted_at` last, though it is null in every entry (see below). */
export const holdingsIndexColumns: readonly string[] = Object.freeze(['product_id', 'start_time', 'end_time', 'status', 'quantity', '_id', 'deleted_at']);

/**
 * Makes `bookings_holdings_idx` (0016) covering on SQLite too. The holdings query says
 * `deleted_at is null`, which the partial index implies, yet SQLite counts an index as
 * covering only when it holds every column the query names, so it visited the table for
 * each booking it scanned (its plan said `USING INDEX`, not `USING COVERING INDEX`).
 * With `deleted_at` in the index the scan never leaves it. PostgreSQL already answered the
 * query from the index alone; the definition stays the same on both.
 */
export function coveringHoldingsIndexMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await sql`drop index if exists ${sql.id('bookings_holdings_idx')}`.execute(db);
      await createIndex(db, dialect, 'bookings_holdings_idx', 'bookings', holdingsIndexColumns, true);
    },
  };
}
