import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db } from '../dialect.js';

/**
 * Lets the retention job find what it removes by age through an index instead of scanning
 * the very tables it keeps bounded: finished webhook deliveries and dispatched outbox
 * events (`webhooks/delivery-retention.ts`), expired sign-in challenges
 * (`sign-in/challenge-retention.ts`). The first two are partial: a row enters the index when
 * it is finished (a delivery leaves `pending`, an event is dispatched), so the inserts on a
 * write's hot path add no entry.
 */
export function retentionIndexesMigration(): Migration {
  return {
    async up(db: Db) {
      await sql`create index webhook_deliveries_finished_idx on webhook_deliveries (updated_at) where status <> 'pending'`.execute(db);
      await sql`create index outbox_events_dispatched_idx on outbox_events (dispatched_at) where dispatched_at is not null`.execute(db);
      await db.schema.createIndex('otp_challenges_expires_idx').on('otp_challenges').column('expires_at').execute();
      await db.schema.createIndex('mfa_challenges_expires_idx').on('mfa_challenges').column('expires_at').execute();
    },
  };
}
