import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

describe.each(dialects)('resource CRUD on %s', (dialect) => {
  let h: Harness;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    tenant = await h.tenant('Acme');
    token = await h.bearer(tenant, [...crud('products'), ...crud('bookings')]);
  });
  afterAll(() => h.close());

  it('creates a product with 201, Location and a strong ETag, and applies defaults', async () => {
    const res = await h.request({ method: 'POST', url: '/v1/products/', token, body: product });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ ...product, status: 'active', is_published: false, tenant_id: tenant });
    expect(res.headers.location).toBe(`http://api.test/v1/products/${body._id}`);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(body.description).toBeNull();
    const read = await h.request({ method: 'GET', url: `/v1/products/${body._id}`, token });
    expect(read.json()).toEqual(body);
    expect(read.headers.etag).toBe(res.headers.etag);
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('reads, patches with If-Match and deletes (soft)', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    const id = created.json()._id as string;
    const read = await h.request({ method: 'GET', url: `/v1/products/${id}`, token });
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe(created.headers.etag);

    const noMatch = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { status: 'maintenance' } });
    expect(noMatch.statusCode).toBe(428);
    expect(noMatch.json().code).toBe('precondition_required');

    const star = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { status: 'maintenance' }, headers: { 'if-match': '*' } });
    expect(star.statusCode).toBe(412);

    const patched = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { status: 'maintenance' }, headers: { 'if-match': String(read.headers.etag) } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().status).toBe('maintenance');
    expect(patched.headers.etag).not.toBe(read.headers.etag);

    const stale = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(read.headers.etag) } });
    expect(stale.statusCode).toBe(412);

    const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(patched.headers.etag) } });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).statusCode).toBe(404);
  });

  it('lists with envelope and pagination headers', async () => {
    await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    const res = await h.request({ method: 'GET', url: '/v1/products/?per_page=1&sort=-created_at', token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toHaveLength(1);
    expect(body.per_page).toBe(1);
    expect(res.headers['x-total-count']).toBe(String(body.total));
    expect(res.headers.link).toContain('rel="next"');
  });

  it('refuses a delete of a product with live bookings (409 naming them)', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    const id = created.json()._id as string;
    const booking = await h.request({ method: 'POST', url: '/v1/bookings/', token, body: { product_id: id, start_time: '2026-12-01T10:00:00Z', end_time: '2026-12-02T10:00:00Z' } });
    expect(booking.statusCode).toBe(201);
    const res = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(created.headers.etag) } });
    expect(res.statusCode).toBe(409);
    expect(res.json().blocking_resources).toEqual(['bookings']);
  });
});
