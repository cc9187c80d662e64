import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { applyRetentionPolicies } from '../../../src/gdpr/retention-policies.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * A retention purge of bookings frees units like a booking delete, so it takes the
 * product's lock as every booking write does (docs/architecture.md "Lock order"). PostgreSQL
 * only: SQLite runs one write transaction at a time, so nothing can straddle a purge there.
 */
describe('a booking retention purge takes its bookings’ and their products’ locks on postgres', () => {
  const day = 24 * 60 * 60 * 1000;
  let time = Date.now();
  const clock: Clock = { now: () => time };
  let h: Harness;
  let token = '';
  let productId = '';

  beforeAll(async () => {
    h = await createHarness('postgres', { clock });
    token = await h.bearer(await h.tenant('Purge'), [...crud('products'), ...crud('bookings'), ...crud('retention-policies')]);
    const post = async (url: string, body: unknown) => (await h.request({ method: 'POST', url, token, body })).json() as Record<string, unknown>;
    // Made 40 days ago (the token, issued now, is still unexpired then).
    time = Date.now() - 40 * day;
    productId = String((await post('/v1/products', { name: 'P', address: 'a', city: 'c', zip_code: '1', total_items: 1 }))._id);
    await post('/v1/bookings', { product_id: productId, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z' });
    time = Date.now();
    await post('/v1/retention-policies', { category: 'bookings', retention_days: 30, action: 'delete' });
  });
  afterAll(() => h.close());

  it('waits for a transaction holding the product, and purges once it ends', async () => {
    await h.database.db.connection().execute(async (holder) => {
      await sql`begin`.execute(holder);
      await sql`select _id from products where _id = ${productId} for update`.execute(holder);
      const purge = applyRetentionPolicies(h.database, clock);
      await expect
        .poll(
          async () =>
            (await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(h.database.db)).rows[0]
              ?.waiting,
          {
            timeout: 10_000,
          },
        )
        .toBe(1);
      // Still there while the product is held.
      expect(await h.database.db.selectFrom('bookings').select('_id').where('product_id', '=', productId).execute()).toHaveLength(1);
      await sql`commit`.execute(holder);
      expect((await purge).map((run) => run.processed)).toEqual([1]);
    });
    expect(await h.database.db.selectFrom('bookings').select('_id').where('product_id', '=', productId).execute()).toHaveLength(0);
  });
});
