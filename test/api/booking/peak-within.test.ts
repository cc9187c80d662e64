import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peakWithin } from '../../../src/booking/holdings.js';
import type { Clock } from '../../../src/core/clock.js';
import { asSystem } from '../../../src/core/principal.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const day = 86_400_000;

/**
 * The peak a capacity check, a quote and a `total_items` lowering read (`peakWithin`: a
 * stretch of time at a time, stopping once the peak reaches what the caller needs) against a
 * brute-force reading of the bookings: the most units held at any instant of the window.
 * With pages of one to four holdings, stays start together across page ends and run from
 * one page into the next.
 */
describe.each(dialects)('the peak within a window on %s', (dialect) => {
  const now = Date.UTC(2030, 0, 10);
  const clock: Clock = { now: () => now };
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect, { clock });
    token = await h.token(await h.client(await h.tenant('Peak'), [...crud('products'), ...crud('bookings')]), undefined, now);
  });
  afterAll(() => h.close());

  const booking = fc.record({ start: fc.integer({ min: -10, max: 30 }), length: fc.integer({ min: 1, max: 20 }), quantity: fc.integer({ min: 1, max: 3 }), cancelled: fc.boolean() });
  const window = fc.record({ from: fc.integer({ min: -5, max: 30 }), length: fc.integer({ min: 1, max: 40 }) });

  it('equals the brute-force peak, or reaches `enough` when that is lower, leaving out one booking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(booking, { maxLength: 14 }),
        window,
        fc.integer({ min: 1, max: 12 }),
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        async (list, { from, length }, enough, except, pageRows) => {
          const product = String((await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 1000 } })).json()._id);
          const ids: string[] = [];
          for (const b of list) {
            const body = {
              product_id: product,
              start_time: new Date(now + b.start * day).toISOString(),
              end_time: new Date(now + (b.start + b.length) * day).toISOString(),
              quantity: b.quantity,
              status: b.cancelled ? 'cancelled' : 'active',
            };
            const reply = await h.request({ method: 'POST', url: '/v1/bookings', token, body });
            expect(reply.statusCode).toBe(201);
            ids.push(String(reply.json()._id));
          }
          const left = list.length > 0 ? except % list.length : -1;
          const holding = list.filter((b, i) => !b.cancelled && i !== left);
          let expected = 0;
          for (let at = from; at < from + length; at += 1) {
            const held = holding.filter((b) => b.start <= at && at < b.start + b.length).reduce((sum, b) => sum + b.quantity, 0);
            expected = Math.max(expected, held);
          }
          const queries = new ScopedQueries(h.database.db, h.database.dialect, asSystem());
          const window = [now + from * day, now + (from + length) * day] as const;
          const options = { ...(left >= 0 ? { exceptId: ids[left] } : {}) };
          expect(await peakWithin(queries, product, ...window, now, options)).toBe(expected);
          // Pages of a few holdings: a page stops among holdings that start together, and holdings run from page to page.
          expect(await peakWithin(queries, product, ...window, now, { ...options, pageRows })).toBe(expected);
          const bounded = await peakWithin(queries, product, ...window, now, { ...options, enough, pageRows });
          if (expected < enough) expect(bounded).toBe(expected);
          else expect(bounded).toBeGreaterThanOrEqual(enough);
          expect(bounded).toBeLessThanOrEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
