import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const product = { name: 'P', address: 'a', city: 'Berlin', zip_code: '1', total_items: 1 };

describe.each(dialects)('list totals on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let time = Date.now();
  const clock: Clock = { now: () => time };

  beforeAll(async () => {
    h = await createHarness(dialect, { clock });
    token = await h.bearer(await h.tenant('A'), crud('products'));
    for (let i = 0; i < 5; i++) await h.request({ method: 'POST', url: '/v1/products', token, body: product });
  });
  afterAll(() => h.close());

  const total = async () => (await h.request({ method: 'GET', url: '/v1/products?city=Berlin&per_page=2', token })).json().total as number;

  // Totals relative to the start of each test: the other test changes the table too.
  it('reflects every write made through the API at once', async () => {
    const start = await total();
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    expect(await total()).toBe(start + 1);
    const id = created.json()._id as string;
    await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(created.headers.etag) } });
    expect(await total()).toBe(start);
  });

  it('picks up changes made elsewhere (another instance) once the cached total expires', async () => {
    const start = await total();
    expect(start).toBeGreaterThan(0);
    await h.database.db
      .updateTable('products')
      .set({ city: 'Paris' })
      .where('_id', 'in', h.database.db.selectFrom('products').select('_id').where('city', '=', 'Berlin').limit(1))
      .execute();
    expect(await total()).toBe(start);
    time += 1001;
    expect(await total()).toBe(start - 1);
  });
});
