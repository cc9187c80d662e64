import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource, resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { roleReach } from '../../../src/actions/roles.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';
import { minimalBody, patchBody, productBody, timeRange } from '../../support/resource-bodies.js';

const writable = resources.filter((r) => r.name !== 'audit-logs').map((r) => r.name);

interface Created {
  readonly id: string;
  readonly etag: string;
}

/**
 * Tenant isolation and own-record reach for end users (issue 13): user tokens obtained
 * through the real sign-in (one-time password by e-mail; administrators add TOTP), so the
 * principal under test is exactly what the security pipeline builds for a user.
 */
describe.each(dialects)('user principals on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const node = { a: '', b: '' };
  const userId: Record<string, string> = {};
  const token: Record<string, string> = {};
  let published = '';
  const inA = new Map<ResourceName, Created>();
  // The service's clock: each sign-in and each TOTP code moves it on (cooldown, time steps).
  let offset = 0;
  const now = () => Date.now() + offset;

  const as = (who: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => h.request({ method, url, token: token[who] as string, body, headers });
  const ids = (body: { items: { _id: string }[] }) => body.items.map((item) => item._id);

  /** A user token by e-mail one-time password; for an admin with TOTP added (step-up), so it holds every capability. */
  const signIn = (tenant: string, email: string, withTotp: boolean) => signInByEmail(h, smtp, tenant, email, { totp: withTotp, now, advance: (ms) => (offset += ms) });

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    node.a = await h.tenant('A', 'parent_tenant');
    node.b = await h.tenant('B', 'parent_tenant');
    const people = { adminA: ['a', 'admin'], adminB: ['b', 'admin'], staffA: ['a', 'staff'], guest1: ['a', 'guest'], guest2: ['a', 'guest'] } as const;
    for (const [name, [tenant, role]] of Object.entries(people)) {
      userId[name] = await createUserIn(h, node[tenant], 'parent_tenant', { email: `${name.toLowerCase()}@users.test`, role });
      token[name] = await signIn(node[tenant], `${name.toLowerCase()}@users.test`, role === 'admin');
    }

    // Published, so guests may book it (docs/bookings.md "Products that take no bookings"), with room for every test's booking.
    const product = await as('adminA', 'POST', '/v1/products/', { ...productBody, total_items: 10, is_published: true, price: 40 });
    published = product.json()._id as string;
    const parents = { productId: published, userId: userId.guest1 as string };
    for (const name of writable) {
      const res = await as('adminA', 'POST', `/v1/${name}/`, minimalBody(name, parents));
      if (res.statusCode !== 201) throw new Error(`creating ${name} in A as a user failed: ${res.statusCode} ${res.body}`);
      inA.set(name, { id: res.json()._id as string, etag: String(res.headers.etag) });
    }
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const record = (name: ResourceName): Created => {
    const found = inA.get(name);
    if (!found) throw new Error(`no ${name} record in A`);
    return found;
  };

  describe('a user of tenant B, holding every capability with TOTP', () => {
    it.each(writable)('%s: a record of A answers 404 for GET, PATCH and DELETE, and stays unchanged', async (name) => {
      const { id, etag } = record(name);
      const read = await as('adminB', 'GET', `/v1/${name}/${id}`);
      expect(read.statusCode).toBe(404);
      expect(read.json().code).toBe('not_found');
      const operations: readonly string[] = getResource(name).operations;
      const patch = await as('adminB', 'PATCH', `/v1/${name}/${id}`, patchBody(name), { 'if-match': etag });
      expect(patch.statusCode, patch.body).toBe(operations.includes('update') ? 404 : 405);
      const remove = await as('adminB', 'DELETE', `/v1/${name}/${id}`, undefined, { 'if-match': etag });
      expect(remove.statusCode, remove.body).toBe(operations.includes('delete') ? 404 : 405);
      const own = await as('adminA', 'GET', `/v1/${name}/${id}`);
      expect(own.statusCode).toBe(200);
      expect(own.headers.etag).toBe(etag);
    });

    it.each(writable)('%s: lists never contain rows of A, whatever the filter', async (name) => {
      const { id } = record(name);
      expect((await as('adminA', 'GET', `/v1/${name}/?_id=${id}`)).json().total).toBe(1);
      const all = await as('adminB', 'GET', `/v1/${name}/?per_page=100`);
      expect(all.statusCode).toBe(200);
      expect(ids(all.json())).not.toContain(id);
      const where = encodeURIComponent(JSON.stringify({ _id: id }));
      for (const url of [`/v1/${name}/?_id=${id}`, `/v1/${name}?where=${where}`]) {
        expect((await as('adminB', 'GET', url)).json(), url).toMatchObject({ items: [], total: 0 });
      }
    });

    it("cannot write into A: X-Tenant-Id is refused, a reference to A's records is a 400, creates land in B", async () => {
      const named = await as('adminB', 'POST', '/v1/products/', productBody, { 'x-tenant-id': node.a });
      expect(named.statusCode).toBe(403);
      expect(named.json().code).toBe('tenant_forbidden');
      const booking = await as('adminB', 'POST', '/v1/bookings/', { product_id: record('products').id, ...timeRange });
      expect(booking.statusCode).toBe(400);
      expect(booking.json().errors).toEqual([{ field: 'product_id', message: 'does not name an existing products record' }]);
      const consent = await as('adminB', 'POST', '/v1/consents/', { user_id: userId.guest1, purpose: 'x', granted: true });
      expect(consent.statusCode).toBe(400);
      const own = await as('adminB', 'POST', '/v1/products/', productBody);
      expect(own.statusCode).toBe(201);
      expect(own.json().tenant_id).toBe(node.b);
      expect((await as('adminA', 'GET', `/v1/products/${own.json()._id}`)).statusCode).toBe(404);
    });

    it("does not see A's audit entries", async () => {
      const { id } = record('products');
      expect((await as('adminA', 'GET', `/v1/audit-logs/?record_id=${id}`)).json().total).toBeGreaterThan(0);
      expect((await as('adminB', 'GET', `/v1/audit-logs/?record_id=${id}`)).json().total).toBe(0);
    });
  });

  describe('a guest reaches only the records that name the guest', () => {
    it("is declared per role: guests reach their own records, staff and admins the tenant's", () => {
      expect(roleReach).toEqual({ guest: 'own', staff: 'tenant', admin: 'tenant' });
    });

    it("lists, reads and filters only its own bookings and orders; another user's answer 404", async () => {
      const productId = published;
      const mine = await as('guest1', 'POST', '/v1/bookings/', { product_id: productId, ...timeRange });
      expect(mine.statusCode, mine.body).toBe(201);
      // A guest's new booking names the guest without being told.
      expect(mine.json().user_id).toBe(userId.guest1);
      const theirs = await as('guest2', 'POST', '/v1/bookings/', { product_id: productId, ...timeRange });
      expect(theirs.json().user_id).toBe(userId.guest2);
      const staffs = await as('staffA', 'POST', '/v1/bookings/', { product_id: productId, ...timeRange });
      expect(staffs.json().user_id).toBeNull();
      // Made for guest1 by the admin: guest1 sees it too.
      const fromSetup = (await as('adminA', 'POST', '/v1/bookings/', { product_id: productId, user_id: userId.guest1, ...timeRange })).json()._id as string;

      const listed = await as('guest1', 'GET', '/v1/bookings/?per_page=100');
      expect(listed.statusCode).toBe(200);
      expect(ids(listed.json()).sort()).toEqual([mine.json()._id, fromSetup].sort());
      expect(listed.json().total).toBe(2);
      expect(listed.headers['x-total-count']).toBe('2');
      expect((await as('guest1', 'GET', `/v1/bookings/${theirs.json()._id}`)).statusCode).toBe(404);
      expect((await as('guest1', 'GET', `/v1/bookings/${staffs.json()._id}`)).statusCode).toBe(404);
      expect((await as('guest1', 'GET', `/v1/bookings/${mine.json()._id}`)).statusCode).toBe(200);
      expect((await as('guest1', 'GET', `/v1/bookings/?user_id=${userId.guest2}`)).json()).toMatchObject({ items: [], total: 0 });
      const where = encodeURIComponent(JSON.stringify({ _id: { $in: [theirs.json()._id, staffs.json()._id] } }));
      expect((await as('guest1', 'GET', `/v1/bookings/?where=${where}`)).json()).toMatchObject({ items: [], total: 0 });
      expect(ids((await as('guest2', 'GET', '/v1/bookings/?per_page=100')).json())).toEqual([theirs.json()._id]);

      // Staff reach every booking of the tenant.
      const all = ids((await as('staffA', 'GET', '/v1/bookings/?per_page=100')).json());
      expect(all).toEqual(expect.arrayContaining([mine.json()._id, theirs.json()._id, staffs.json()._id, fromSetup, record('bookings').id]));
      expect(ids(listed.json())).not.toContain(record('bookings').id); // the admin's, naming nobody

      // Orders likewise.
      const order = (await as('adminA', 'POST', '/v1/orders/', { product_id: productId, user_id: userId.guest1, ...timeRange })).json()._id as string;
      expect((await as('guest1', 'GET', `/v1/orders/${order}`)).statusCode).toBe(200);
      expect((await as('guest2', 'GET', `/v1/orders/${order}`)).statusCode).toBe(404);
      expect(ids((await as('guest2', 'GET', '/v1/orders/?per_page=100')).json())).not.toContain(order);
    });

    it('cannot book for another user (the other user is out of reach: 400), and still sees the catalogue', async () => {
      const productId = published;
      const forOther = await as('guest1', 'POST', '/v1/bookings/', { product_id: productId, user_id: userId.guest2, ...timeRange });
      expect(forOther.statusCode).toBe(400);
      expect(forOther.json().errors).toEqual([{ field: 'user_id', message: 'does not name an existing users record' }]);
      const forSelf = await as('guest1', 'POST', '/v1/orders/', { product_id: productId, user_id: userId.guest1, ...timeRange });
      expect(forSelf.statusCode, forSelf.body).toBe(201);
      expect((await as('guest1', 'GET', `/v1/products/${productId}`)).statusCode).toBe(200);
      expect(ids((await as('guest1', 'GET', '/v1/products/?per_page=100')).json())).toContain(productId);
      // An unpublished product is bookable by API clients and staff, not by end users.
      const unpublished = await as('guest1', 'POST', '/v1/bookings/', { product_id: record('products').id, ...timeRange });
      expect(unpublished.statusCode, unpublished.body).toBe(409);
      expect(unpublished.json()).toMatchObject({ code: 'product_unavailable' });
      expect((await as('staffA', 'POST', '/v1/bookings/', { product_id: record('products').id, ...timeRange })).statusCode).toBe(201);
    });

    it("holds no capability on users or other people's data: 403 before any scope", async () => {
      for (const url of ['/v1/users/', `/v1/users/${userId.guest2}`, '/v1/consents/', '/v1/audit-logs/']) {
        const res = await as('guest1', 'GET', url);
        expect(res.statusCode, url).toBe(403);
      }
    });
  });
});
