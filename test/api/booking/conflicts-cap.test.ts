import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/** A refusal on a busy product stays small (docs/bookings.md): at most 100 conflicts, the first by start time, and a flag. */
describe.each(dialects)('the conflicts a refusal names on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Busy'), [...crud('products'), ...crud('bookings')]);
  });
  afterAll(() => h.close());

  it('lists the first 100 by start time and says there are more', async () => {
    const units = 120;
    const product = String((await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Hall', address: 'A 1', city: 'Oslo', zip_code: '0150', total_items: units } })).json()._id);
    const ids: string[] = [];
    for (let i = 0; i < units; i += 1) {
      const start = new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString();
      const created = await h.request({ method: 'POST', url: '/v1/bookings', token, body: { product_id: product, start_time: start, end_time: '2030-01-02T00:00:00Z' } });
      ids.push(String(created.json()._id));
    }
    const refused = await h.request({ method: 'POST', url: '/v1/bookings', token, body: { product_id: product, start_time: '2030-01-01T12:00:00Z', end_time: '2030-01-01T13:00:00Z' } });
    expectProblem(refused, 409, 'capacity_exceeded');
    expect(refused.json()).toMatchObject({ available: 0, conflicts_truncated: true });
    expect(refused.json().conflicts).toEqual(ids.slice(0, 100));
    // Lowering total_items below what bookings hold names at most 100 as well.
    const read = await h.request({ method: 'GET', url: `/v1/products/${product}`, token });
    const lowered = await h.request({ method: 'PATCH', url: `/v1/products/${product}`, token, body: { total_items: 50 }, headers: { 'if-match': String(read.headers.etag) } });
    expectProblem(lowered, 409, 'capacity_exceeded');
    expect(lowered.json().conflicts).toHaveLength(100);
  });
});
