import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { productBody, timeRange } from '../../support/resource-bodies.js';

const capabilities = ['products', 'users', 'bookings', 'orders', 'service-charges', 'subscriptions', 'tenants'].flatMap(crud).concat('users:write:email', 'consents:create', 'consents:read');

interface Created {
  readonly id: string;
  readonly etag: string;
  readonly resource: string;
}

describe.each(dialects)('cascade deny on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let system: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Acme'), capabilities);
    system = await h.bearer(null, capabilities);
  });
  afterAll(() => h.close());

  async function create(resource: string, body: unknown, as = token, headers: Record<string, string> = {}): Promise<Created> {
    const res = await h.request({ method: 'POST', url: `/v1/${resource}/`, token: as, body, headers });
    if (res.statusCode !== 201) throw new Error(`create ${resource}: ${res.statusCode} ${res.body}`);
    return { id: res.json()._id as string, etag: String(res.headers.etag), resource };
  }
  const remove = (record: Created, as = token) => h.request({ method: 'DELETE', url: `/v1/${record.resource}/${record.id}`, token: as, headers: { 'if-match': record.etag } });

  async function expectBlocked(parent: Created, blocking: string[], as = token): Promise<void> {
    const res = await remove(parent, as);
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 409, code: 'cascade_conflict', blocking_resources: blocking });
    for (const name of blocking) expect(res.json().detail).toContain(name);
    // Still there, ETag unchanged: the refused delete changed nothing.
    const still = await h.request({ method: 'GET', url: `/v1/${parent.resource}/${parent.id}`, token: as });
    expect(still.statusCode).toBe(200);
    expect(still.headers.etag).toBe(parent.etag);
  }

  it('a product is blocked by its bookings, orders, service charges and subscriptions, then deletable', async () => {
    const product = await create('products', productBody);
    const children = [
      await create('bookings', { product_id: product.id, ...timeRange }),
      await create('orders', { product_id: product.id, ...timeRange }),
      await create('service-charges', { product_id: product.id, amount: 3 }),
      await create('subscriptions', { product_id: product.id }),
    ];
    await expectBlocked(product, ['bookings', 'orders', 'service-charges', 'subscriptions']);
    for (const [index, child] of children.entries()) {
      expect((await remove(child)).statusCode).toBe(204);
      if (index < children.length - 1)
        await expectBlocked(
          product,
          children.slice(index + 1).map((c) => c.resource),
        );
    }
    expect((await remove(product)).statusCode).toBe(204);
  });

  it('a user is blocked by its bookings, orders and subscriptions, then deletable; consents (append-only evidence) keep blocking', async () => {
    const product = await create('products', productBody);
    const user = await create('users', { email: 'guest@example.com' });
    const children = [
      await create('bookings', { product_id: product.id, user_id: user.id, ...timeRange }),
      await create('orders', { product_id: product.id, user_id: user.id, ...timeRange }),
      await create('subscriptions', { product_id: product.id, user_id: user.id }),
    ];
    await expectBlocked(user, ['bookings', 'orders', 'subscriptions']);
    for (const child of children) expect((await remove(child)).statusCode).toBe(204);
    expect((await remove(user)).statusCode).toBe(204);

    // A user with consents is erased (depersonalised), never deleted: the consents stay as proof.
    const consenting = await create('users', { email: 'consenting@example.com' });
    await create('consents', { user_id: consenting.id, purpose: 'marketing_email', granted: true });
    await expectBlocked(consenting, ['consents']);
  });

  it('a tenant node is blocked by its child nodes and by every record in it, then deletable', async () => {
    const node = await create('tenants', { name: 'Region', level: 'parent_tenant' }, system);
    const inNode = { 'x-tenant-id': node.id };
    const child = await create('tenants', { name: 'Shop', level: 'tenant', parent_id: node.id }, system);
    const product = await create('products', productBody, system, inNode);
    const user = await create('users', { email: 'x@example.com' }, system, inNode);
    await expectBlocked(node, ['products', 'tenants', 'users'], system);

    expect((await remove(child, system)).statusCode).toBe(204);
    await expectBlocked(node, ['products', 'users'], system);
    for (const record of [product, user])
      expect((await h.request({ method: 'DELETE', url: `/v1/${record.resource}/${record.id}`, token: system, headers: { ...inNode, 'if-match': record.etag } })).statusCode).toBe(204);
    expect((await remove(node, system)).statusCode).toBe(204);
    expect((await h.request({ method: 'GET', url: `/v1/tenants/${node.id}`, token: system })).statusCode).toBe(404);
  });

  it('a soft-deleted parent cannot be referenced by a new or changed child (400)', async () => {
    const product = await create('products', productBody);
    const user = await create('users', { email: 'gone@example.com' });
    const live = await create('users', { email: 'live@example.com' });
    const booking = await create('bookings', { product_id: (await create('products', productBody)).id, user_id: live.id, ...timeRange });
    expect((await remove(product)).statusCode).toBe(204);
    expect((await remove(user)).statusCode).toBe(204);

    const byProduct = await h.request({ method: 'POST', url: '/v1/bookings/', token, body: { product_id: product.id, ...timeRange } });
    expect(byProduct.statusCode).toBe(400);
    expect(byProduct.json().errors).toEqual([{ field: 'product_id', message: 'does not name an existing products record' }]);
    const byUser = await h.request({ method: 'POST', url: '/v1/consents/', token, body: { user_id: user.id, purpose: 'p', granted: false } });
    expect(byUser.statusCode).toBe(400);
    expect(byUser.json().errors).toEqual([expect.objectContaining({ field: 'user_id' })]);
    const repoint = await h.request({ method: 'PATCH', url: `/v1/bookings/${booking.id}`, token, body: { user_id: user.id }, headers: { 'if-match': booking.etag } });
    expect(repoint.statusCode).toBe(400);
  });

  it('a soft-deleted tenant node can no longer be named in X-Tenant-Id', async () => {
    const node = await create('tenants', { name: 'Closed', level: 'partner' }, system);
    // Resolve it once so the directory has it cached before the delete.
    expect((await h.request({ method: 'GET', url: '/v1/products/', token: system, headers: { 'x-tenant-id': node.id } })).statusCode).toBe(200);
    expect((await remove(node, system)).statusCode).toBe(204);
    const res = await h.request({ method: 'POST', url: '/v1/products/', token: system, body: productBody, headers: { 'x-tenant-id': node.id } });
    expect(res.statusCode).toBe(400);
  });

  it('a child created while its parent is being deleted never survives as an orphan', async () => {
    for (let round = 0; round < 5; round += 1) {
      const product = await create('products', productBody);
      const [child, deleted] = await Promise.all([h.request({ method: 'POST', url: '/v1/bookings/', token, body: { product_id: product.id, ...timeRange } }), remove(product)]);
      // Exactly one of the two wins: either the child exists and blocked the delete, or the delete won and the child was refused.
      expect([
        [201, 409],
        [400, 204],
      ]).toContainEqual([child.statusCode, deleted.statusCode]);
    }
  });

  it('a record created while its tenant node is being deleted never survives as an orphan', async () => {
    for (let round = 0; round < 5; round += 1) {
      const node = await create('tenants', { name: `Race ${round}`, level: 'partner' }, system);
      const [child, deleted] = await Promise.all([h.request({ method: 'POST', url: '/v1/products/', token: system, body: productBody, headers: { 'x-tenant-id': node.id } }), remove(node, system)]);
      expect([
        [201, 409],
        [400, 204],
      ]).toContainEqual([child.statusCode, deleted.statusCode]);
    }
  });
});
