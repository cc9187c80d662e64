import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../../src/actions/capabilities.js';
import { getResource, resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';
import { minimalBody, patchBody, productBody } from '../../support/resource-bodies.js';

/** Every capability the service knows: each client holds all of them, so only tenancy can refuse. */
const everything = capabilities.map((c) => c.name);
const writable = resources.filter((r) => r.name !== 'audit-logs').map((r) => r.name);

interface Created {
  readonly id: string;
  readonly etag: string;
}

describe.each(dialects)('tenant isolation on %s', (dialect) => {
  let h: Harness;
  // Hierarchy: system > P (partner) > A (parent_tenant) > T (tenant); B (parent_tenant) hangs under system.
  const node = { p: '', a: '', t: '', b: '' };
  const token = { p: '', a: '', t: '', b: '', system: '' };
  const inA = new Map<ResourceName, Created>();

  const get = (who: keyof typeof token, url: string, headers: Record<string, string> = {}) => h.request({ method: 'GET', url, token: token[who], headers });
  const ids = (body: { items: { _id: string }[] }) => body.items.map((item) => item._id);

  beforeAll(async () => {
    h = await createHarness(dialect);
    node.p = await h.tenant('Partner P', 'partner');
    node.a = await h.tenant('A', 'parent_tenant', node.p);
    node.t = await h.tenant('T', 'tenant', node.a);
    node.b = await h.tenant('B', 'parent_tenant');
    const issued = await Promise.all([node.p, node.a, node.t, node.b, null].map((n) => h.bearer(n, everything)));
    [token.p, token.a, token.t, token.b, token.system] = issued as [string, string, string, string, string];

    const product = await h.request({ method: 'POST', url: '/v1/products/', token: token.a, body: productBody });
    const user = await h.request({ method: 'POST', url: '/v1/users/', token: token.a, body: { email: 'owner@example.com' } });
    const parents = { productId: product.json()._id as string, userId: user.json()._id as string };
    for (const name of writable) {
      const res = await h.request({ method: 'POST', url: `/v1/${name}/`, token: token.a, body: minimalBody(name, parents) });
      if (res.statusCode !== 201) throw new Error(`creating ${name} in A failed: ${res.statusCode} ${res.body}`);
      inA.set(name, { id: res.json()._id as string, etag: String(res.headers.etag) });
    }
  });
  afterAll(() => h.close());

  const record = (name: ResourceName): Created => {
    const found = inA.get(name);
    if (!found) throw new Error(`no ${name} record in A`);
    return found;
  };

  it.each(writable)('%s: a record of A answers 404 to B for GET, PATCH and DELETE, and stays unchanged', async (name) => {
    const { id, etag } = record(name);
    const read = await get('b', `/v1/${name}/${id}`);
    expect(read.statusCode).toBe(404);
    expect(read.json().code).toBe('not_found');
    // Append-only resources (consents) answer 405 for any id, which reveals nothing either.
    const operations: readonly string[] = getResource(name).operations;
    const patch = await h.request({ method: 'PATCH', url: `/v1/${name}/${id}`, token: token.b, body: patchBody(name), headers: { 'if-match': etag } });
    expect(patch.statusCode).toBe(operations.includes('update') ? 404 : 405);
    const remove = await h.request({ method: 'DELETE', url: `/v1/${name}/${id}`, token: token.b, headers: { 'if-match': etag } });
    expect(remove.statusCode).toBe(operations.includes('delete') ? 404 : 405);
    const own = await get('a', `/v1/${name}/${id}`);
    expect(own.statusCode).toBe(200);
    expect(own.headers.etag).toBe(etag);
  });

  it.each(writable)('%s: B lists never contain rows of A, whatever the filter', async (name) => {
    const { id } = record(name);
    const where = encodeURIComponent(JSON.stringify({ _id: id }));
    // A sees its own row through the same filters, so the empty answers below mean something.
    expect((await get('a', `/v1/${name}/?_id=${id}`)).json().total).toBe(1);
    expect((await get('a', `/v1/${name}/?where=${where}`)).json().total).toBe(1);

    const all = await get('b', `/v1/${name}/?per_page=100`);
    expect(all.statusCode).toBe(200);
    expect(ids(all.json())).not.toContain(id);
    for (const url of [`/v1/${name}/?_id=${id}`, `/v1/${name}?where=${where}`, `/v1/${name}/?_id__in=${id}`]) {
      const res = await get('b', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toMatchObject({ items: [], total: 0 });
      expect(res.headers['x-total-count'], url).toBe('0');
    }
  });

  it.each(writable)('%s: the partner above A sees the record; a tenant below A sees only its own rows', async (name) => {
    const { id } = record(name);
    expect((await get('p', `/v1/${name}/${id}`)).statusCode).toBe(200);
    expect(ids((await get('p', `/v1/${name}/?_id=${id}`)).json())).toEqual([id]);

    expect((await get('t', `/v1/${name}/${id}`)).statusCode).toBe(404);
    const below = (await get('t', `/v1/${name}/?per_page=100`)).json() as { items: { _id: string; tenant_id: string | null }[] };
    expect(ids(below)).not.toContain(id);
    if (name === 'tenants') expect(ids(below)).toEqual([node.t]);
    else for (const item of below.items) expect(item.tenant_id).toBe(node.t);
  });

  it('audit entries of A are invisible to B and to the tenant below A', async () => {
    const { id } = record('products');
    expect((await get('a', `/v1/audit-logs/?record_id=${id}`)).json().total).toBeGreaterThan(0);
    expect((await get('p', `/v1/audit-logs/?record_id=${id}`)).json().total).toBeGreaterThan(0);
    expect((await get('b', `/v1/audit-logs/?record_id=${id}`)).json().total).toBe(0);
    expect((await get('t', `/v1/audit-logs/?record_id=${id}`)).json().total).toBe(0);
    const entry = (await get('a', `/v1/audit-logs/?record_id=${id}`)).json().items[0]._id as string;
    expect((await get('b', `/v1/audit-logs/${entry}`)).statusCode).toBe(404);
  });

  it('a reference to a record of another tenant is refused like a missing one (400), on create and update', async () => {
    const bProduct = (await h.request({ method: 'POST', url: '/v1/products/', token: token.b, body: productBody })).json()._id as string;
    const bUser = (await h.request({ method: 'POST', url: '/v1/users/', token: token.b, body: { email: 'b@example.com' } })).json()._id as string;
    const created = await h.request({ method: 'POST', url: '/v1/bookings/', token: token.a, body: { product_id: bProduct, start_time: '2026-12-01T10:00:00Z', end_time: '2026-12-02T10:00:00Z' } });
    expect(created.statusCode).toBe(400);
    expect(created.json().errors).toEqual([{ field: 'product_id', message: 'does not name an existing products record' }]);
    const { id, etag } = record('bookings');
    const patched = await h.request({ method: 'PATCH', url: `/v1/bookings/${id}`, token: token.a, body: { user_id: bUser }, headers: { 'if-match': etag } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().errors).toEqual([expect.objectContaining({ field: 'user_id' })]);
    const consent = await h.request({ method: 'POST', url: '/v1/consents/', token: token.a, body: { user_id: bUser, purpose: 'x', granted: true } });
    expect(consent.statusCode).toBe(400);
  });

  it('a key cannot be added to a client of another tenant (404)', async () => {
    const { id } = record('api-clients');
    const res = await h.request({ method: 'POST', url: `/v1/api-clients/${id}/keys`, token: token.b, body: { public_key: clientKeyPair().publicPem } });
    expect(res.statusCode).toBe(404);
  });

  it('X-Tenant-Id from a non-system caller is 403 tenant_forbidden, even naming its own node', async () => {
    for (const [who, target] of [
      ['a', node.b],
      ['a', node.a],
      ['p', node.a],
      ['t', node.t],
    ] as const) {
      const res = await get(who, '/v1/products/', { 'x-tenant-id': target });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('tenant_forbidden');
    }
  });

  it('a system caller acts in the tenant X-Tenant-Id names: creates land there, reads cover its subtree only', async () => {
    const inB = await h.request({ method: 'POST', url: '/v1/products/', token: token.b, body: productBody });
    const bProduct = inB.json()._id as string;
    const created = await h.request({ method: 'POST', url: '/v1/products/', token: token.system, body: productBody, headers: { 'x-tenant-id': node.a } });
    expect(created.statusCode).toBe(201);
    const id = created.json()._id as string;
    expect(created.json().tenant_id).toBe(node.a);
    expect((await get('a', `/v1/products/${id}`)).statusCode).toBe(200);

    const inA = ids((await get('system', '/v1/products/?per_page=100', { 'x-tenant-id': node.a })).json());
    expect(inA).toContain(id);
    expect(inA).not.toContain(bProduct);
    expect(ids((await get('system', '/v1/products/?per_page=100', { 'x-tenant-id': node.p })).json())).toContain(id);
    expect(ids((await get('system', '/v1/products/?per_page=100', { 'x-tenant-id': node.t })).json())).not.toContain(id);
    expect((await get('system', `/v1/products/${bProduct}`, { 'x-tenant-id': node.a })).statusCode).toBe(404);
    const tenantsOfB = ids((await get('system', '/v1/tenants/?per_page=100', { 'x-tenant-id': node.b })).json());
    expect(tenantsOfB).toEqual([node.b]);

    const everywhere = ids((await get('system', '/v1/products/?per_page=100')).json());
    expect(everywhere).toEqual(expect.arrayContaining([id, bProduct]));
  });

  it('a system caller creating a tenant-owned record without X-Tenant-Id gets 400', async () => {
    const res = await h.request({ method: 'POST', url: '/v1/products/', token: token.system, body: productBody });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'X-Tenant-Id' })]);
  });

  it('an unknown or malformed X-Tenant-Id is 400', async () => {
    for (const target of ['0190a8b2-0000-7000-8000-000000000000', 'no such node', 'x'.repeat(65)]) {
      const res = await get('system', '/v1/products/', { 'x-tenant-id': target });
      expect(res.statusCode, target).toBe(400);
      expect(res.json().errors, target).toEqual([expect.objectContaining({ field: 'X-Tenant-Id' })]);
    }
  });

  it.each(writable)('%s: tenant_id and other server-owned fields in a body are refused with 400', async (name) => {
    const parents = { productId: record('products').id, userId: record('users').id };
    for (const extra of [{ tenant_id: node.b }, { tenant_id: null }, { _id: 'mine' }, { created_at: '2026-01-01T00:00:00Z' }]) {
      const res = await h.request({ method: 'POST', url: `/v1/${name}/`, token: token.a, body: { ...minimalBody(name, parents), ...extra } });
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ field: Object.keys(extra)[0] }));
    }
    const { id } = record(name);
    if (!getResource(name).operations.includes('update')) return;
    const current = await get('a', `/v1/${name}/${id}`);
    const patch = await h.request({ method: 'PATCH', url: `/v1/${name}/${id}`, token: token.a, body: { tenant_id: node.b }, headers: { 'if-match': String(current.headers.etag) } });
    expect(patch.statusCode).toBe(400);
    expect((await get('a', `/v1/${name}/${id}`)).json().tenant_id).toBe(current.json().tenant_id);
  });
});
