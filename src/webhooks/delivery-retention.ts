import { sql } from 'kysely';
import type { SqlBool } from 'kysely';
import type { Database, Db } from '../db/dialect.js';

/** Rows per transaction: a long backlog (the first run after an upgrade) never holds SQLite's write lock for long. */
const batchSize = 500;

export interface DeliveryHistoryPurge {
  /** Finished deliveries removed, with their attempts. */
  readonly deliveries: number;
  readonly attempts: number;
  /** Outbox events removed: dispatched longer ago than the window, with no delivery left. */
  readonly outboxEvents: number;
}

/**
 * Removes the delivery history older than `days` (`WEBHOOK_DELIVERY_RETENTION_DAYS`, 30 by
 * default: time to look into a receiver's outage and retry what failed, as long as Stripe
 * keeps its events; the payloads copy records, personal data among them, so not for ever).
 * That is deliveries that finished (`succeeded` or `failed`; a retry makes one pending
 * again) with their attempt rows, then outbox events dispatched before the cutoff that have
 * no delivery left (the dispatcher no longer reads them; erasure still needs an event while
 * a delivery of it remains). Pending deliveries stay whatever their age. Each batch is one
 * transaction, so a delivery never loses its attempts without going itself; the indexes of
 * migration 0020 find the rows by age.
 */
export async function purgeDeliveryHistory(database: Database, now: number, days: number): Promise<DeliveryHistoryPurge> {
  const cutoff = database.dialect.toDb('timestamp', new Date(now - days * 24 * 60 * 60 * 1000).toISOString());
  let deliveries = 0;
  let attempts = 0;
  for (;;) {
    const batch = await database.db.transaction().execute(async (trx) => {
      const ids = (await finishedBefore(trx, cutoff).execute()).map((row) => row._id);
      if (ids.length === 0) return { selected: 0, deliveries: 0, attempts: 0 };
      // The condition again: a delivery retried since the read above is pending and stays
      // (PostgreSQL re-checks it on the row it waited for), and so do its attempts.
      const gone = (await trx.deleteFrom('webhook_deliveries').where('_id', 'in', ids).where(finished).where('updated_at', '<', cutoff).returning('_id').execute()).map((row) => row._id);
      const removedAttempts = gone.length === 0 ? 0 : Number((await trx.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', gone).executeTakeFirst()).numDeletedRows);
      return { selected: ids.length, deliveries: gone.length, attempts: removedAttempts };
    });
    deliveries += batch.deliveries;
    attempts += batch.attempts;
    if (batch.selected < batchSize) break;
  }
  let outboxEvents = 0;
  for (;;) {
    const removed = await database.db.transaction().execute(async (trx) => {
      const ids = (await dispatchedBefore(trx, cutoff).execute()).map((row) => row._id);
      if (ids.length === 0) return 0;
      return Number((await trx.deleteFrom('outbox_events').where('_id', 'in', ids).executeTakeFirst()).numDeletedRows);
    });
    outboxEvents += removed;
    if (removed < batchSize) break;
  }
  return { deliveries, attempts, outboxEvents };
}

/**
 * A delivery that finished. Literal, as the partial index says it, so the planner proves the
 * index applies from the SQL alone: with a bound value SQLite re-plans only in builds with
 * STAT4, PostgreSQL only in a custom plan.
 */
const finished = sql<SqlBool>`status <> 'pending'`;

/** One batch of finished deliveries last touched before `cutoff` (its plan is tested). */
export function finishedBefore(db: Db, cutoff: unknown) {
  return db.selectFrom('webhook_deliveries').select('_id').where(finished).where('updated_at', '<', cutoff).limit(batchSize);
}

/**
 * One batch of outbox events dispatched before `cutoff` whose deliveries are all gone (its
 * plan is tested). Erasure reaches a delivery's payload through its event
 * (`rewriteOutboxData`), so an event stays while one of its deliveries does: one still
 * pending, or finished within the window.
 */
export function dispatchedBefore(db: Db, cutoff: unknown) {
  return db
    .selectFrom('outbox_events')
    .select('_id')
    .where('dispatched_at', '<', cutoff)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries').select('webhook_deliveries._id').whereRef('webhook_deliveries.event_id', '=', 'outbox_events._id'))))
    .limit(batchSize);
}
