import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';
import { productBody, timeRange } from '../../support/resource-bodies.js';

/**
 * A guest creates bookings only in their initial status (audit finding 5): a `completed`
 * booking would skip the lifecycle. An order's status is the service's for a guest (a
 * `confirmed` order would skip payment; docs/selling.md "Orders"): a guest sends none.
 * Everyone who runs the business (API clients, staff, admins) still sets any status of a
 * booking, and of an order of a product without a price (v1's orders).
 */
describe.each(dialects)('status of records end users create on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const token: Record<string, string> = {};
  let productId = '';
  let pricedId = '';
  let offset = 0;
  const now = () => Date.now() + offset;

  const as = (who: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => h.request({ method, url, token: token[who] as string, body, headers });
  const listOf = async (who: string, resource: string) => (await as(who, 'GET', `/v1/${resource}/?per_page=100`)).json().items as { _id: string; status: string }[];

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    const node = await h.tenant('A', 'parent_tenant');
    // Before the sign-ins move the service's clock on: the client assertion carries real time.
    token.client = await h.bearer(node, ['products:create', 'bookings:create', 'bookings:list', 'orders:create', 'orders:list']);
    for (const role of ['guest', 'staff', 'admin'] as const) {
      await createUserIn(h, node, 'parent_tenant', { email: `${role}@users.test`, role });
      token[role] = await signInByEmail(h, smtp, node, `${role}@users.test`, { totp: role === 'admin', now, advance: (ms) => (offset += ms) });
    }
    const product = await as('client', 'POST', '/v1/products/', { ...productBody, total_items: 20, is_published: true });
    productId = product.json()._id as string;
    pricedId = (await as('client', 'POST', '/v1/products/', { ...productBody, total_items: 20, is_published: true, price: 50 })).json()._id as string;
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  describe('orders', () => {
    it.each(['active', 'confirmed', 'completed', 'cancelled'])('a guest cannot send status %s: 400 naming status, nothing written', async (status) => {
      const before = await listOf('guest', 'orders');
      const res = await as('guest', 'POST', '/v1/orders/', { product_id: pricedId, ...timeRange, status });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'status', message: expect.stringContaining('set by the service') }]);
      expect(await listOf('guest', 'orders')).toEqual(before);
    });

    it('a guest creates one active by leaving the status out, and cannot change it afterwards', async () => {
      const created = await as('guest', 'POST', '/v1/orders/', { product_id: pricedId, ...timeRange });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().status).toBe('active');
      const res = await as('guest', 'PATCH', `/v1/orders/${String(created.json()._id)}`, { status: 'confirmed' }, { 'if-match': String(created.headers.etag) });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('insufficient_scope');
    });

    it('a guest cannot order a product without a price (409 not_for_sale)', async () => {
      const res = await as('guest', 'POST', '/v1/orders/', { product_id: productId, ...timeRange });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().code).toBe('not_for_sale');
    });

    it.each(['client', 'staff', 'admin'])('%s still creates an unpriced (v1) order in any status', async (who) => {
      for (const status of ['confirmed', 'completed', 'cancelled']) {
        const res = await as(who, 'POST', '/v1/orders/', { product_id: productId, ...timeRange, status });
        expect(res.statusCode, `${status}: ${res.body}`).toBe(201);
        expect(res.json().status).toBe(status);
      }
    });
  });

  const cases = [{ resource: 'bookings', initial: 'active', others: ['completed', 'cancelled'] }] as const;

  describe.each(cases)('$resource', ({ resource, initial, others }) => {
    it.each(others)(`a guest cannot create one %s: 403 field_forbidden naming status, nothing written`, async (status) => {
      const before = await listOf('guest', resource);
      const res = await as('guest', 'POST', `/v1/${resource}/`, { product_id: productId, ...timeRange, status });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject({ code: 'field_forbidden', status: 403 });
      expect(res.json().errors).toEqual([{ field: 'status', message: expect.stringContaining('set by the service for end users') }]);
      expect(await listOf('guest', resource)).toEqual(before);
    });

    it(`a guest creates one ${initial}, saying so or not`, async () => {
      for (const body of [{}, { status: initial }]) {
        const res = await as('guest', 'POST', `/v1/${resource}/`, { product_id: productId, ...timeRange, ...body });
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().status).toBe(initial);
      }
    });

    it('a guest cannot change the status afterwards either: no update capability', async () => {
      const created = await as('guest', 'POST', `/v1/${resource}/`, { product_id: productId, ...timeRange });
      const id = created.json()._id as string;
      const res = await as('guest', 'PATCH', `/v1/${resource}/${id}`, { status: others[0] }, { 'if-match': String(created.headers.etag) });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('insufficient_scope');
      expect((await as('guest', 'GET', `/v1/${resource}/${id}`)).json().status).toBe(initial);
    });

    it.each(['client', 'staff', 'admin'])('%s still creates one in any status', async (who) => {
      for (const status of others) {
        const res = await as(who, 'POST', `/v1/${resource}/`, { product_id: productId, ...timeRange, status });
        expect(res.statusCode, `${status}: ${res.body}`).toBe(201);
        expect(res.json().status).toBe(status);
      }
    });
  });
});
