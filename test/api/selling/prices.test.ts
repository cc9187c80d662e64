import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/*
 * Money on the way in (docs/selling.md "Money"): prices and charges are JSON numbers no finer
 * than their currency, currencies are ISO 4217 codes, and a product's charges share its
 * currency. Every refusal writes nothing.
 */
describe.each(dialects)('prices and charges on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Prices'), [...crud('products'), ...crud('service-charges'), ...crud('orders')]);
  });
  afterAll(() => h.close());

  const post = (url: string, body: unknown) => h.request({ method: 'POST', url, token, body });
  const productBody = { name: 'Room', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: 2 };
  const count = async (table: string) => (await h.database.db.selectFrom(table).select('_id').execute()).length;

  it('refuses a price that is a string, negative, finer than its currency or in an unknown currency, writing nothing', async () => {
    const before = await count('products');
    for (const [fields, field] of [
      [{ price: '12' }, 'price'],
      [{ price: -1 }, 'price'],
      [{ price: 10.005 }, 'price'],
      [{ price: 0.5, currency: 'JPY' }, 'price'],
      [{ price: 10, currency: 'XYZ' }, 'currency'],
      [{ price: 10, currency: 'eur' }, 'currency'],
      [{ price: 10, currency: 'XAU' }, 'currency'],
      [{ price: 10, price_unit: 'week' }, 'price_unit'],
    ] as const) {
      const answer = await post('/v1/products', { ...productBody, ...fields });
      expectProblem(answer, 400, 'validation_failed');
      expect(JSON.stringify(answer.json().errors), JSON.stringify(fields)).toContain(field);
    }
    expect(await count('products')).toBe(before);
    expect((await post('/v1/products', { ...productBody, price: 10.005, currency: 'KWD' })).statusCode).toBe(201);
    const defaulted = await post('/v1/products', { ...productBody, price: 99.99 });
    expect(defaulted.json()).toMatchObject({ price: 99.99, price_unit: 'night', currency: 'EUR' });
  });

  it('gives a charge its product’s currency, refuses another one (409 currency_mismatch) and checks amounts by basis', async () => {
    const product = String((await post('/v1/products', { ...productBody, price: 1000, currency: 'JPY' })).json()._id);
    const charge = await post('/v1/service-charges', { product_id: product, amount: 500 });
    expect(charge.statusCode, charge.body).toBe(201);
    expect(charge.json()).toMatchObject({ currency: 'JPY', basis: 'per_order' });
    const mismatch = await post('/v1/service-charges', { product_id: product, amount: 5, currency: 'EUR' });
    expectProblem(mismatch, 409, 'currency_mismatch');
    expect(mismatch.json()).toMatchObject({ currency: 'EUR', product_currency: 'JPY' });
    expectProblem(await post('/v1/service-charges', { product_id: product, amount: 0.5 }), 400, 'validation_failed');
    expect((await post('/v1/service-charges', { product_id: product, amount: 7.5, basis: 'percent_of_rent' })).statusCode).toBe(201);
    expectProblem(await post('/v1/service-charges', { product_id: product, amount: 101, basis: 'percent_of_rent' }), 400, 'validation_failed');
    expectProblem(await post('/v1/service-charges', { product_id: product, amount: 1, basis: 'per_week' }), 400, 'validation_failed');
    // The product's currency cannot leave its charges behind.
    const read = await h.request({ method: 'GET', url: `/v1/products/${product}`, token });
    const changed = await h.request({ method: 'PATCH', url: `/v1/products/${product}`, token, body: { currency: 'EUR' }, headers: { 'if-match': String(read.headers.etag) } });
    expectProblem(changed, 409, 'currency_mismatch');
  });

  it('prices every basis of charge for a stay of several units and periods, half up per line', async () => {
    const product = String((await post('/v1/products', { ...productBody, total_items: 5, price: 33.33, price_unit: 'day' })).json()._id);
    for (const [basis, amount] of [
      ['per_order', 10],
      ['per_unit', 2.5],
      ['per_unit_per_period', 1.1],
      ['percent_of_rent', 12.5],
    ] as const)
      expect((await post('/v1/service-charges', { product_id: product, name: basis, amount, basis })).statusCode).toBe(201);
    const quoter = await h.bearer((await h.database.db.selectFrom('products').select('tenant_id').where('_id', '=', product).executeTakeFirstOrThrow()).tenant_id as string, ['orders:quote']);
    const quote = await h.request({
      method: 'POST',
      url: '/v1/quotes',
      token: quoter,
      body: { product_id: product, start_time: '2030-03-01T09:00:00Z', end_time: '2030-03-03T09:00:00Z', quantity: 3 },
    });
    expect(quote.statusCode, quote.body).toBe(200);
    // Days touched: 1, 2 and 3 March. Rent 3 days × 3 units × 33.33 = 299.97.
    const { lines, total, periods } = quote.json();
    expect(periods).toBe(3);
    expect(lines.filter((l: { kind: string }) => l.kind === 'service_charge').map((l: { amount: number }) => l.amount)).toEqual([10, 7.5, 9.9, 37.5]);
    expect(total).toBe(364.87);
  });
});
