import type { Migration } from 'kysely';
import type { Db } from '../dialect.js';

/** Erasure rewrites the deliveries of an event by `event_id`: an index keeps that a lookup, not a scan. */
export function webhookDeliveryEventIndexMigration(): Migration {
  return {
    async up(db: Db) {
      await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();
    },
  };
}
