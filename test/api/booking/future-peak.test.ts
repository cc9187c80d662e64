import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { futurePeak } from '../../../src/booking/holdings.js';
import type { Clock } from '../../../src/core/clock.js';
import { asSystem } from '../../../src/core/principal.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const hour = 3_600_000;

/**
 * The peak the database computes when `total_items` is lowered (a running sum in SQL, never
 * the product's future in memory) against a brute-force reading of the bookings: the most
 * units held at any instant from now on.
 */
describe.each(dialects)('the future peak on %s', (dialect) => {
  const now = Date.UTC(2030, 0, 10);
  const clock: Clock = { now: () => now };
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect, { clock });
    token = await h.token(await h.client(await h.tenant('Peak'), [...crud('products'), ...crud('bookings')]), undefined, now);
  });
  afterAll(() => h.close());

  const booking = fc.record({ start: fc.integer({ min: -48, max: 48 }), length: fc.integer({ min: 1, max: 24 }), quantity: fc.integer({ min: 1, max: 3 }), cancelled: fc.boolean() });

  it('equals the brute-force peak over every instant from now on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(booking, { maxLength: 12 }), async (list) => {
        const product = String((await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 1000 } })).json()._id);
        for (const b of list) {
          const body = {
            product_id: product,
            start_time: new Date(now + b.start * hour).toISOString(),
            end_time: new Date(now + (b.start + b.length) * hour).toISOString(),
            quantity: b.quantity,
            status: b.cancelled ? 'cancelled' : 'active',
          };
          expect((await h.request({ method: 'POST', url: '/v1/bookings', token, body })).statusCode).toBe(201);
        }
        const holding = list.filter((b) => !b.cancelled);
        let expected = 0;
        for (let at = 0; at <= 72; at += 1) {
          const held = holding.filter((b) => b.start <= at && at < b.start + b.length).reduce((sum, b) => sum + b.quantity, 0);
          expected = Math.max(expected, held);
        }
        const peak = await futurePeak(new ScopedQueries(h.database.db, h.database.dialect, asSystem()), product, now);
        expect(peak).toBe(expected);
      }),
      { numRuns: 25 },
    );
  });
});
