import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * When the attempt under way of a delivery was claimed, null while none is
 * (`src/webhooks/dispatcher.ts`). A claim still set when its lease has lapsed is an attempt
 * whose instance stopped before recording an answer: the next claim records it as
 * abandoned, so it counts and shows among the delivery's attempts. Existing rows start
 * unclaimed.
 */
export function webhookDeliveryClaimsMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await db.schema
        .alterTable('webhook_deliveries')
        .addColumn('claimed_at', sql.raw(dialect.columnType('timestamp')))
        .execute();
    },
  };
}
