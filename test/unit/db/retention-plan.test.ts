import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { dispatchedBefore, finishedBefore } from '../../../src/webhooks/delivery-retention.js';

/**
 * The retention job keeps the delivery history bounded, so it must not scan that history
 * to find what is old: its queries match the partial indexes of migration 0020. SQLite uses
 * a partial index only when the query implies the index's condition, which is easy to lose
 * in a rewrite, so the plans are checked.
 */
describe('the delivery history purge on sqlite', () => {
  let database: Database;
  beforeAll(async () => {
    database = openSqlite(':memory:');
    await migrateToLatest(database);
  });
  afterAll(() => database.close());

  const plan = async (query: CompiledQuery) => (await database.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((row) => row.detail).join(' | ');
  const cutoff = '2026-01-01T00:00:00.000Z';

  it('finds finished deliveries through webhook_deliveries_finished_idx', async () => {
    expect(await plan(finishedBefore(database.db, cutoff).compile())).toMatch(/USING (COVERING )?INDEX webhook_deliveries_finished_idx \(updated_at<\?\)/);
  });

  it('finds dispatched outbox events through outbox_events_dispatched_idx', async () => {
    const found = await plan(dispatchedBefore(database.db, cutoff).compile());
    expect(found).toMatch(/USING (COVERING )?INDEX outbox_events_dispatched_idx \(dispatched_at<\?\)/);
    // And whether a delivery of the event is left, by its event index.
    expect(found).toMatch(/SEARCH webhook_deliveries USING (COVERING )?INDEX webhook_deliveries_event_idx \(event_id=\?\)/);
  });
});
