import type { Database } from '../db/dialect.js';

/**
 * How long a received event is kept by default (`WEBHOOK_RECEIVED_RETENTION_DAYS`): a
 * redelivery within this window is answered as a duplicate. docs/webhooks.md "Answers"
 * promises at least 7 days, which also covers the senders' retries (Stripe up to 3 days,
 * Standard Webhooks senders about a day); the rows name the sender's events and their
 * outcome, so they are kept no longer than that.
 */
export const receivedRetentionDays = 7;

/**
 * Deletes received-event rows older than the window. The retention job calls it every
 * interval, so each run removes only about one interval's worth of rows. Returns how many.
 */
export async function purgeReceivedEvents(database: Database, now: number, days = receivedRetentionDays): Promise<number> {
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  const result = await database.db.deleteFrom('webhook_received').where('received_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
