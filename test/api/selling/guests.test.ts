import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';

/*
 * End users (guests) buy through quotes and orders (docs/selling.md "Orders"): the money and
 * the status are the service's, so a guest sets none of them, and a product without a price
 * is not for sale to them (v1's unpriced orders are for API clients only).
 */
describe.each(dialects)('guests ordering on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let offset = 0;
  const now = () => Date.now() + offset;
  let guest: string;
  let client: string;
  const products: Record<'priced' | 'unpriced', string> = { priced: '', unpriced: '' };
  const stay = { start_time: '2030-05-01T14:00:00Z', end_time: '2030-05-03T10:00:00Z' };

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    const tenant = await h.tenant('Shop', 'parent_tenant');
    client = await h.bearer(tenant, [...crud('products'), ...crud('orders')]);
    for (const [name, price] of [
      ['priced', 70],
      ['unpriced', null],
    ] as const) {
      const created = await h.request({
        method: 'POST',
        url: '/v1/products',
        token: client,
        body: { name, address: 'A 1', city: 'Köln', zip_code: '50667', total_items: 2, is_published: true, price },
      });
      products[name] = String(created.json()._id);
    }
    await createUserIn(h, tenant, 'parent_tenant', { email: 'buyer@users.test', role: 'guest' });
    guest = await signInByEmail(h, smtp, tenant, 'buyer@users.test', { now, advance: (ms) => (offset += ms) });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const asGuest = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => h.request({ method, url, token: guest, body, headers });

  it('quotes and orders a priced product at the quoted total, as their own order', async () => {
    const quote = await asGuest('POST', '/v1/quotes', { product_id: products.priced, ...stay });
    expect(quote.statusCode, quote.body).toBe(200);
    const order = await asGuest('POST', '/v1/orders', { quote_id: quote.json().quote_id });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json()).toMatchObject({ status: 'active', total_amount: 140, currency: 'EUR' });
    expect(order.json().user_id).toEqual(expect.any(String));
  });

  it('sets neither money nor status, and gets not_for_sale for a product without a price', async () => {
    for (const [field, value] of [
      ['total_amount', 1],
      ['currency', 'EUR'],
      ['status', 'active'],
    ] as const)
      expectProblem(await asGuest('POST', '/v1/orders', { product_id: products.priced, ...stay, [field]: value }), 400, 'validation_failed');
    expectProblem(await asGuest('POST', '/v1/orders', { product_id: products.unpriced, ...stay }), 409, 'not_for_sale');
    const order = await asGuest('POST', '/v1/orders', { product_id: products.priced, ...stay });
    expect(order.statusCode, order.body).toBe(201);
    const etag = String(order.headers.etag);
    // A guest changes no order at all: the role has no orders:update.
    for (const body of [{ total_amount: 1 }, { currency: 'USD' }, { status: 'cancelled' }])
      expectProblem(await asGuest('PATCH', `/v1/orders/${String(order.json()._id)}`, body, { 'if-match': etag }), 403, 'insufficient_scope');
  });
});
