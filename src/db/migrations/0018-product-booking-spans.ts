import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * The longest booking each product has had (`src/booking/booking-spans.ts`): the holdings
 * query looks back that far for bookings overlapping a range, instead of the 366 days any
 * booking may last. Filled from the existing bookings (every live one, whatever its status:
 * a cancelled booking may be reactivated), read in pages so a large table is not held in memory.
 */
export function productBookingSpansMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('product_booking_spans')
        .addColumn('product_id', text, (c) => c.primaryKey())
        .addColumn('longest_ms', 'bigint', (c) => c.notNull())
        .execute();
      const longest = new Map<string, number>();
      const page = 5_000;
      for (let after = ''; ;) {
        const rows = await db
          .selectFrom('bookings')
          .select(['_id', 'product_id', 'start_time', 'end_time'])
          .where('deleted_at', 'is', null)
          .where('_id', '>', after)
          .orderBy('_id')
          .limit(page)
          .execute();
        for (const row of rows) {
          const span = Date.parse(String(dialect.fromDb('timestamp', row.end_time))) - Date.parse(String(dialect.fromDb('timestamp', row.start_time)));
          const product = String(row.product_id);
          if (Number.isFinite(span) && span > (longest.get(product) ?? 0)) longest.set(product, span);
        }
        if (rows.length < page) break;
        after = String(rows[rows.length - 1]?._id);
      }
      const entries = [...longest].map(([product_id, longest_ms]) => ({ product_id, longest_ms }));
      for (let i = 0; i < entries.length; i += 500)
        await db
          .insertInto('product_booking_spans')
          .values(entries.slice(i, i + 500))
          .execute();
    },
  };
}
