import type { Database } from '../db/dialect.js';

/**
 * The queue the metrics report: deliveries waiting to be sent, across every tenant (an
 * operator's gauge), and the age of the oldest.
 */
export async function webhookQueue(database: Database, now: number): Promise<{ depth: number; oldestAgeMs: number }> {
  const row = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll().as('depth'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const oldest = row?.oldest === null || row?.oldest === undefined ? Number.NaN : Date.parse(String(row.oldest));
  return { depth: Number(row?.depth ?? 0), oldestAgeMs: Number.isNaN(oldest) ? 0 : Math.max(0, now - oldest) };
}
