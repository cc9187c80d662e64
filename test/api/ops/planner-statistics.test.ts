import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { keepPlannerStatisticsCurrent } from '../../../src/db/planner-statistics.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { getResource } from '../../../src/registry/index.js';
import { eventually } from '../../support/poll.js';

const tenantId = '0190a8b2-0000-7000-8000-00000000aaaa';
const bookingCount = 20_000;
const idOf = (n: number) => `0190a8b2-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Records what the job logs, so a failing refresh shows up in the assertion. */
function recordingLog(errors: unknown[]) {
  const log = { error: (...args: unknown[]) => void errors.push(args), child: () => log } as unknown as Parameters<typeof keepPlannerStatisticsCurrent>[1];
  return log;
}

/**
 * SQLite without statistics guesses that an equality on a tenant index finds ten rows, so a
 * list of a few bookings by id under the tenant filter walks the tenant's every booking.
 * The service starts on an empty database (no statistics to gather), so the periodic
 * refresh is what puts the primary key back in charge once the table has grown.
 */
describe('planner statistics on sqlite', () => {
  let database: Database;
  beforeAll(async () => {
    database = openSqlite(':memory:');
    await migrateToLatest(database);
    const at = new Date(Date.UTC(2030, 0, 1)).toISOString();
    // One tenant's bookings, loaded in bulk the way an import or a restore adds rows.
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${bookingCount})
      insert into bookings (_id, tenant_id, created_at, updated_at, product_id, start_time, end_time, status, quantity, etag)
      select '0190a8b2-0000-7000-8000-' || substr('000000000000' || i, -12), ${tenantId}, ${at}, ${at}, 'p', ${at}, ${at}, 'active', 1, 'x' from n
    `.execute(database.db);
  });
  afterAll(() => database.close());

  const scope = { nodeId: tenantId, level: 'tenant' as const, path: `/${tenantId}/` };
  /** A list of three bookings by id, as `GET /v1/bookings?_id__in=…` asks for them. */
  const listByIds = (): CompiledQuery =>
    new ScopedQueries(database.db, database.dialect, { actorType: 'client', actorId: 'c', capabilities: new Set(), home: scope, scope, unrestricted: false })
      .scoped(getResource('bookings'))
      .selectAll()
      .where('_id', 'in', [idOf(7), idOf(70), idOf(700)])
      .orderBy('created_at', 'desc')
      .limit(26)
      .compile();
  const plan = async () => (await database.db.executeQuery<{ detail: string }>({ ...listByIds(), sql: `explain query plan ${listByIds().sql}` })).rows.map((row) => row.detail).join('\n');

  it('reads a list by ids through the primary key once the refresh has run', async () => {
    expect(await plan(), 'without statistics the tenant index leads').toMatch(/USING INDEX bookings_tenant_\w+ \(tenant_id=\?\)/);
    const errors: unknown[] = [];
    const stop = keepPlannerStatisticsCurrent(database, recordingLog(errors), 10);
    try {
      await eventually(plan, (detail) => /USING INDEX sqlite_autoindex_bookings_1 \(_id=\?\)/.test(detail), 'the primary key to lead the plan');
    } finally {
      await stop();
    }
    expect(errors).toEqual([]);
    expect((await database.db.executeQuery(listByIds())).rows).toHaveLength(3);
  });
});
