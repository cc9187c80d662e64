import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * SQLite has no statement timeout, so `$regex` matching carries a time budget per
 * statement. The budget's clock is injected here: each match "costs" 1 ms, so the outcome
 * does not depend on how busy the machine is.
 */
describe('a regex time budget on SQLite answers 503', () => {
  let h: Harness;
  let token: string;
  let ticks = 0;

  beforeAll(async () => {
    h = await createHarness('sqlite', { database: { statementTimeoutMs: 100, now: () => ticks++ } });
    const tenant = await h.tenant('Budget');
    token = await h.bearer(tenant, crud('products'));
    for (let i = 0; i < 300; i++) {
      const city = i < 40 ? 'few' : 'many';
      const res = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: `Product ${i}`, address: 'x', city, zip_code: '1', total_items: 1 } });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(() => h.close());

  it('stops a pattern that has to be matched against too many rows in one turn', async () => {
    const where = encodeURIComponent(JSON.stringify({ name: { $regex: '9$' } }));
    const res = await h.request({ method: 'GET', url: `/v1/products?where=${where}`, token });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(res.headers['retry-after']).toBe('1');
  });

  it('starts a fresh budget with every statement and answers narrower queries', async () => {
    const where = encodeURIComponent(JSON.stringify({ city: 'few', name: { $regex: '9$' } }));
    const res = await h.request({ method: 'GET', url: `/v1/products?where=${where}&per_page=100`, token });
    expect(res.statusCode).toBe(200);
    expect(res.json().total).toBe(4);
  });
});
