import type { Database } from '../db/dialect.js';

/**
 * How long a received event id is remembered: a redelivery within this window is answered
 * as a duplicate. CONTRACT.md asks for at least 7 days; senders retry for up to 3 days
 * (Stripe) or about a day (Standard Webhooks senders), so 30 days leaves ample room.
 */
export const receivedRetentionDays = 30;

/**
 * Deletes received-event rows older than the window. The retention job calls it every
 * interval, so each run removes only about one interval's worth of rows. Returns how many.
 */
export async function purgeReceivedEvents(database: Database, now: number, days = receivedRetentionDays): Promise<number> {
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  const result = await database.db.deleteFrom('webhook_received').where('received_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
