import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingsQuery } from '../../../src/booking/holdings.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { asSystem } from '../../../src/core/principal.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * The capacity check and both availability reads scan `bookings_holdings_idx`; each booking
 * scanned must be answered from the index alone, or a search over 100 products visits the
 * table hundreds of times. The plan asked for is the real query `holdingsOf` runs.
 */
describe.each(dialects)('the holdings query on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(dialect);
  });
  afterAll(() => h.close());

  /**
   * The plan of `query`. PostgreSQL plans an empty table by cost alone, so inside a
   * transaction that is rolled back it is left only the holdings index (the other
   * non-unique indexes of `bookings` dropped, sequential and bitmap scans off): the plan
   * then says whether that index can answer alone (`Index Only Scan`) or must visit the table.
   */
  async function explain(query: CompiledQuery): Promise<string[]> {
    if (dialect === 'sqlite') return (await h.database.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((row) => row.detail);
    const rolledBack = new Error('roll back');
    let lines: string[] = [];
    try {
      await h.database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{
          indexname: string;
        }>`select indexname from pg_indexes where tablename = 'bookings' and indexname <> 'bookings_holdings_idx' and indexdef not like 'CREATE UNIQUE%'`.execute(trx);
        for (const { indexname } of rows) await sql`drop index ${sql.id(indexname)}`.execute(trx);
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
        lines = (await trx.executeQuery<Record<string, string>>({ ...query, sql: `explain ${query.sql}` })).rows.map((row) => String(row['QUERY PLAN']));
        throw rolledBack;
      });
    } catch (error) {
      if (error !== rolledBack) throw error;
    }
    return lines;
  }

  it('is answered from the covering holdings index without reading the table', async () => {
    const queries = new ScopedQueries(h.database.db, h.database.dialect, asSystem());
    const day = 24 * 60 * 60 * 1000;
    const from = Date.UTC(2030, 6, 5);
    const query = holdingsQuery(queries, ['p-1', 'p-2', 'p-3'], from - 7 * day, from, from + 7 * day, from).compile();
    const plan = await explain(query);
    const expected = dialect === 'sqlite' ? /COVERING INDEX bookings_holdings_idx/ : /Index Only Scan using bookings_holdings_idx/;
    expect(plan.join('\n')).toMatch(expected);
  });

  // A refused booking names its conflicts with this query under the caller's scope
  // (`readableConflicts`). Without statistics SQLite guesses any tenant index finds ten
  // rows; the primary-key lookup of the conflicts' ids lost to that guess and walked the
  // tenant's whole history. The product and time range must lead the plan instead.
  it.runIf(dialect === 'sqlite')('under a tenant scope, without statistics, still reads one product and time range', async () => {
    const scope = { nodeId: 'tenant-1', level: 'tenant' as const, path: '/tenant-1/' };
    const queries = new ScopedQueries(h.database.db, h.database.dialect, { actorType: 'client', actorId: 'c', capabilities: new Set(), home: scope, scope, unrestricted: false });
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(h.database.db);
    if (rows[0]?.n) await sql`delete from sqlite_stat1`.execute(h.database.db);
    const from = Date.UTC(2030, 6, 5);
    const plan = (await explain(holdingsQuery(queries, ['p-1'], from - 366 * 24 * 3_600_000, from, from + 3_600_000, from).compile())).join('\n');
    expect(plan).toMatch(/SEARCH bookings USING (COVERING )?INDEX \w+ \((tenant_id=\? AND )?product_id=\? AND start_time>\? AND start_time<\?\)/);
  });
});
