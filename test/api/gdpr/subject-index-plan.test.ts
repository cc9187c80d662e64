import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSystem } from '../../../src/core/principal.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { hasPersonalFields } from '../../../src/derive/erasure.js';
import { batchQuery, userRelations } from '../../../src/gdpr/erase-user.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * An erasure batch finds the user's next records through the table's subject index
 * (`<table>_user_id_subject_idx`, over every row, soft-deleted ones too): without it each
 * batch scanned the whole table while it held SQLite's one writer. The plan asked for is the
 * real query of each relation erasure reaches.
 */
describe.each(dialects)('the erasure batch query on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(dialect);
  });
  afterAll(() => h.close());

  /** The plan of `query`; PostgreSQL plans empty tables by cost, so sequential scans are off for it. */
  async function explain(query: CompiledQuery): Promise<string> {
    if (dialect === 'sqlite') return (await h.database.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((row) => row.detail).join('\n');
    return h.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      return (await trx.executeQuery<Record<string, string>>({ ...query, sql: `explain ${query.sql}` })).rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    });
  }

  it.each(userRelations().map((relation) => [relation.resource.name, relation] as const))('reads %s through its subject index', async (_name, relation) => {
    const queries = new ScopedQueries(h.database.db, h.database.dialect, asSystem());
    // A later pass reads only records not erased yet, of resources that have personal fields.
    for (const leftOnly of hasPersonalFields(relation.resource) ? [false, true] : [false]) {
      const plan = await explain(batchQuery(queries, relation, 'u-1', { after: '', size: 100, leftOnly }).compile());
      expect(plan).toContain(`${relation.resource.table}_${relation.field}_subject_idx`);
    }
  });
});
