import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { productBody, timeRange } from '../../support/resource-bodies.js';

const capabilities = [...crud('tenants'), ...crud('products'), ...crud('orders'), ...crud('service-charges')];

describe.each(dialects)('tenant hierarchy on %s', (dialect) => {
  let h: Harness;
  let system: string;

  const post = (token: string, body: unknown, headers: Record<string, string> = {}) => h.request({ method: 'POST', url: '/v1/tenants/', token, body, headers });
  const get = (token: string, url: string, headers: Record<string, string> = {}) => h.request({ method: 'GET', url, token, headers });

  beforeAll(async () => {
    h = await createHarness(dialect);
    system = await h.bearer(null, capabilities);
  });
  afterAll(() => h.close());

  it('builds partner → parent_tenant → tenant, each below its creator by default', async () => {
    const partner = await post(system, { name: 'Partner', level: 'partner' });
    expect(partner.statusCode).toBe(201);
    expect(partner.json()).toMatchObject({ level: 'partner', parent_id: null, tenant_id: null, currency: 'EUR' });
    const partnerId = partner.json()._id as string;

    const partnerToken = await h.bearer(partnerId, capabilities);
    const parent = await post(partnerToken, { name: 'Parent', level: 'parent_tenant' });
    expect(parent.statusCode).toBe(201);
    expect(parent.json()).toMatchObject({ level: 'parent_tenant', parent_id: partnerId, tenant_id: partnerId });
    const parentId = parent.json()._id as string;

    const parentToken = await h.bearer(parentId, capabilities);
    const tenant = await post(parentToken, { name: 'Leaf' });
    expect(tenant.statusCode).toBe(201);
    expect(tenant.json()).toMatchObject({ level: 'tenant', parent_id: parentId });

    const direct = await post(partnerToken, { name: 'Leaf 2', level: 'tenant', parent_id: parentId });
    expect(direct.json()).toMatchObject({ level: 'tenant', parent_id: parentId });
    expect(ids(await get(partnerToken, '/v1/tenants/?per_page=100'))).toEqual(expect.arrayContaining([partnerId, parentId, tenant.json()._id, direct.json()._id]));
  });

  it('refuses a level that is not strictly below the parent (400 on level)', async () => {
    const partnerId = await h.tenant('P', 'partner');
    const parentId = await h.tenant('PT', 'parent_tenant', partnerId);
    const partnerToken = await h.bearer(partnerId, capabilities);
    const parentToken = await h.bearer(parentId, capabilities);
    const cases: [string, Record<string, unknown>][] = [
      [partnerToken, { name: 'x', level: 'partner' }],
      [parentToken, { name: 'x', level: 'parent_tenant' }],
      [parentToken, { name: 'x', level: 'partner' }],
      [system, { name: 'x', level: 'partner', parent_id: partnerId }],
      [system, { name: 'x', level: 'parent_tenant', parent_id: parentId }],
    ];
    for (const [token, body] of cases) {
      const res = await post(token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'level' })]);
    }
    const leafToken = await h.bearer(await h.tenant('Leaf', 'tenant', parentId), capabilities);
    const belowLeaf = await post(leafToken, { name: 'x' });
    expect(belowLeaf.statusCode).toBe(400);
    expect(belowLeaf.json().errors).toEqual([expect.objectContaining({ field: 'level' })]);
  });

  it("refuses a parent_id outside the caller's reach, unknown or deleted (400 on parent_id)", async () => {
    const mine = await h.tenant('Mine', 'partner');
    const theirs = await h.tenant('Theirs', 'partner');
    const theirChild = await h.tenant('Their child', 'parent_tenant', theirs);
    const token = await h.bearer(mine, capabilities);
    for (const parent of [theirs, theirChild, '0190a8b2-0000-7000-8000-000000000000']) {
      const res = await post(token, { name: 'x', level: 'tenant', parent_id: parent });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'parent_id' })]);
    }
    const gone = await post(system, { name: 'Gone', level: 'partner' });
    await h.request({ method: 'DELETE', url: `/v1/tenants/${gone.json()._id}`, token: system, headers: { 'if-match': String(gone.headers.etag) } });
    const res = await post(system, { name: 'x', level: 'tenant', parent_id: gone.json()._id });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'parent_id' })]);
  });

  it('only a system-scope caller may ask for a node directly below system (parent_id null)', async () => {
    const partner = await h.tenant('Partner', 'partner');
    const partnerToken = await h.bearer(partner, capabilities);
    const refused = await post(partnerToken, { name: 'x', level: 'partner', parent_id: null });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([expect.objectContaining({ field: 'parent_id' })]);
    const viaHeader = await post(system, { name: 'x', level: 'parent_tenant', parent_id: null }, { 'x-tenant-id': partner });
    expect(viaHeader.statusCode).toBe(400);
    const top = await post(system, { name: 'Top', level: 'partner', parent_id: null });
    expect(top.statusCode).toBe(201);
    expect(top.json()).toMatchObject({ parent_id: null, tenant_id: null });
  });

  it('a tenant caller sees its own node and nothing above or beside it', async () => {
    const parent = await h.tenant('Parent', 'parent_tenant');
    const leaf = await h.tenant('Leaf', 'tenant', parent);
    const sibling = await h.tenant('Sibling', 'tenant', parent);
    const token = await h.bearer(leaf, capabilities);
    const list = await get(token, '/v1/tenants/');
    expect(list.json()).toMatchObject({ total: 1, items: [{ _id: leaf, level: 'tenant', parent_id: parent }] });
    expect((await get(token, `/v1/tenants/${leaf}`)).statusCode).toBe(200);
    expect((await get(token, `/v1/tenants/${parent}`)).statusCode).toBe(404);
    expect((await get(token, `/v1/tenants/${sibling}`)).statusCode).toBe(404);
  });

  it('level and parent_id cannot be changed after creation', async () => {
    const created = await post(system, { name: 'Fixed', level: 'partner' });
    const other = await h.tenant('Other', 'partner');
    for (const body of [{ level: 'parent_tenant' }, { parent_id: other }]) {
      const res = await h.request({ method: 'PATCH', url: `/v1/tenants/${created.json()._id}`, token: system, body, headers: { 'if-match': String(created.headers.etag) } });
      expect(res.statusCode).toBe(400);
    }
  });

  it('deleting a node with child nodes or records is 409 naming the blocking resources', async () => {
    const partner = await post(system, { name: 'Busy', level: 'partner' });
    const id = partner.json()._id as string;
    const etag = String(partner.headers.etag);
    const child = await post(system, { name: 'Child', level: 'tenant', parent_id: id });
    const product = await h.request({ method: 'POST', url: '/v1/products/', token: system, body: productBody, headers: { 'x-tenant-id': id } });
    expect(product.statusCode).toBe(201);

    const blocked = await h.request({ method: 'DELETE', url: `/v1/tenants/${id}`, token: system, headers: { 'if-match': etag } });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.headers['content-type']).toContain('application/problem+json');
    expect(blocked.json()).toMatchObject({ code: 'cascade_conflict', blocking_resources: ['products', 'tenants'] });
    expect(blocked.json().detail).toContain('products, tenants');

    // A client in the node blocks its deletion too.
    const leaf = child.json()._id as string;
    await h.client(leaf, ['tenants:read']);
    const leafNow = await get(system, `/v1/tenants/${leaf}`);
    const leafBlocked = await h.request({ method: 'DELETE', url: `/v1/tenants/${leaf}`, token: system, headers: { 'if-match': String(leafNow.headers.etag) } });
    expect(leafBlocked.json().blocking_resources).toEqual(['api-clients']);
  });

  it('the audit trail of a deleted child node stays visible to the nodes above it', async () => {
    const partner = await h.tenant('Keeper', 'partner');
    const partnerToken = await h.bearer(partner, [...capabilities, 'audit-logs:list']);
    const child = await post(partnerToken, { name: 'Short-lived', level: 'tenant' });
    const childId = child.json()._id as string;
    const inChild = { 'x-tenant-id': childId };
    const product = await h.request({ method: 'POST', url: '/v1/products/', token: system, body: productBody, headers: inChild });
    const productId = product.json()._id as string;
    expect((await h.request({ method: 'DELETE', url: `/v1/products/${productId}`, token: system, headers: { ...inChild, 'if-match': String(product.headers.etag) } })).statusCode).toBe(204);
    expect((await h.request({ method: 'DELETE', url: `/v1/tenants/${childId}`, token: partnerToken, headers: { 'if-match': String(child.headers.etag) } })).statusCode).toBe(204);

    const trail = await get(partnerToken, `/v1/audit-logs/?record_id=${productId}&sort=created_at`);
    expect(trail.json().items.map((entry: { action: string }) => entry.action)).toEqual(['create', 'delete']);
    const nodeTrail = await get(partnerToken, `/v1/audit-logs/?record_id=${childId}&sort=created_at`);
    expect(nodeTrail.json().items.map((entry: { action: string }) => entry.action)).toEqual(['create', 'delete']);
  });

  it("orders and service charges default to the owning tenant's currency", async () => {
    const swiss = await post(system, { name: 'Swiss', level: 'tenant', currency: 'CHF' });
    const swissId = swiss.json()._id as string;
    const token = await h.bearer(swissId, capabilities);
    const productId = (await h.request({ method: 'POST', url: '/v1/products/', token, body: productBody })).json()._id as string;
    const order = await h.request({ method: 'POST', url: '/v1/orders/', token, body: { product_id: productId, ...timeRange } });
    expect(order.json().currency).toBe('CHF');
    const charge = await h.request({ method: 'POST', url: '/v1/service-charges/', token, body: { product_id: productId, amount: 5 } });
    expect(charge.json().currency).toBe('CHF');
    const explicit = await h.request({ method: 'POST', url: '/v1/service-charges/', token, body: { product_id: productId, amount: 5, currency: 'USD' } });
    expect(explicit.json().currency).toBe('USD');

    // A system caller acting in the tenant gets the same default.
    const viaSystem = await h.request({ method: 'POST', url: '/v1/orders/', token: system, body: { product_id: productId, ...timeRange }, headers: { 'x-tenant-id': swissId } });
    expect(viaSystem.json()).toMatchObject({ currency: 'CHF', tenant_id: swissId });

    const euro = await h.tenant('Euro');
    const euroToken = await h.bearer(euro, capabilities);
    const euroProduct = (await h.request({ method: 'POST', url: '/v1/products/', token: euroToken, body: productBody })).json()._id as string;
    const euroCharge = await h.request({ method: 'POST', url: '/v1/service-charges/', token: euroToken, body: { product_id: euroProduct, amount: 1 } });
    expect(euroCharge.json().currency).toBe('EUR');
  });
});

function ids(response: { json(): unknown }): string[] {
  return (response.json() as { items: { _id: string }[] }).items.map((item) => item._id);
}
