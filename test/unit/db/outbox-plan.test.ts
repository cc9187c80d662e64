import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { firstPendingEvent } from '../../../src/webhooks/fan-out.js';

/**
 * The dispatcher asks every 100 ms whether an outbox event is pending, and the answer is
 * almost always no. On SQLite that must be a look into the partial index of pending
 * events, whatever the planner's statistics say: taken while the outbox was young and
 * everything in it pending, they made the unordered question scan the whole table.
 */
describe('the outbox poll on sqlite', () => {
  let database: Database;
  beforeAll(async () => {
    database = openSqlite(':memory:');
    await migrateToLatest(database);
    const events = (count: number, from: number, dispatched: string | null) =>
      sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
          insert into outbox_events (_id, created_at, tenant_id, type, resource, record_id, audit_id, data, dispatched_at)
          select printf('evt-%08d', i + ${from}), '2026-01-01T00:00:00.000Z', 't', 'products.created', 'products', 'r', 'a', '{}', ${dispatched} from n`.execute(database.db);
    // Statistics of a young outbox, all of it pending; then it grows and is dispatched.
    await events(10, 0, null);
    await sql`analyze`.execute(database.db);
    await events(20_000, 100, '2026-01-01T00:00:01.000Z');
    await sql`update outbox_events set dispatched_at = '2026-01-01T00:00:02.000Z' where dispatched_at is null`.execute(database.db);
  });
  afterAll(() => database.close());

  const plan = async (query: CompiledQuery) => (await database.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((row) => row.detail).join(' | ');

  it('reads the pending index, not the table, with statistics from when everything was pending', async () => {
    expect(await plan(firstPendingEvent(database.db).compile())).toMatch(/USING (COVERING )?INDEX outbox_events_pending_idx/);
    expect(await firstPendingEvent(database.db).executeTakeFirst()).toBeUndefined();
  });

  it('(control) the same question without the order scans the table under these statistics', async () => {
    const unordered = database.db.selectFrom('outbox_events').select('_id').where('dispatched_at', 'is', null).limit(1);
    expect(await plan(unordered.compile())).toBe('SCAN outbox_events');
  });
});
