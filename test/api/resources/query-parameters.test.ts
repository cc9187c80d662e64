import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };
const notAParameter = 'is not a parameter of this operation';
const missingId = '01890000-0000-7000-8000-000000000000';

describe.each(dialects)('query parameters of operations that take none on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('Parameters');
    token = await h.bearer(tenant, [
      ...crud('products'),
      'webhooks:list',
      'webhooks:read',
      'webhooks:rotate-secret',
      'webhooks:retry',
      'webhooks:test',
      'users:export',
      'users:erase',
      'retention-policies:read',
      'api-clients:rotate-key',
    ]);
  });
  afterAll(() => h.close());

  async function created(): Promise<{ id: string; etag: string }> {
    const response = await h.request({ method: 'POST', url: '/v1/products/', token, body: product });
    expect(response.statusCode, response.body).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag) };
  }
  const total = async () => Number((await h.request({ method: 'GET', url: '/v1/products', token })).json().total);

  /** A 400 `validation_failed` whose `errors` name exactly `fields`, each as no parameter of the operation. */
  function expectRefused(response: Parameters<typeof expectProblem>[0], ...fields: string[]): void {
    expect(expectProblem(response, 400, 'validation_failed').errors).toEqual(fields.map((field) => ({ field, message: notAParameter })));
  }

  it.each([
    ['an unknown parameter', 'foo=1', ['foo']],
    ['a repeated unknown parameter', 'foo=1&foo=2', ['foo']],
    ['the list parameter fields, even a valid field name', 'fields=name', ['fields']],
    ['fields with an unknown name', 'fields=bogus', ['fields']],
    ['page', 'page=0', ['page']],
    ['several', 'sort=name&per_page=5&x', ['sort', 'per_page', 'x']],
  ])('refuses %s on a read by id, naming each', async (_name, query, fields) => {
    const { id } = await created();
    expectRefused(await h.request({ method: 'GET', url: `/v1/products/${id}?${query}`, token }), ...fields);
  });

  it('reads, patches and deletes by id as before without a query', async () => {
    const { id, etag } = await created();
    const read = await h.request({ method: 'GET', url: `/v1/products/${id}`, token });
    expect(read.statusCode).toBe(200);
    expect(Object.keys(read.json())).toEqual(expect.arrayContaining(['_id', 'name', 'city', 'total_items']));
    // An empty query string is no parameter at all.
    expect((await h.request({ method: 'GET', url: `/v1/products/${id}?`, token })).statusCode).toBe(200);
    const patched = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { name: 'Attic' }, headers: { 'if-match': etag } });
    expect(patched.statusCode, patched.body).toBe(200);
    const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(patched.headers.etag) } });
    expect(deleted.statusCode).toBe(204);
  });

  it('refuses a parameter on a create and writes nothing', async () => {
    const before = await total();
    expectRefused(await h.request({ method: 'POST', url: '/v1/products/?foo=1', token, body: product }), 'foo');
    expectRefused(await h.request({ method: 'POST', url: '/v1/products?fields=name', token, body: product }), 'fields');
    expect(await total()).toBe(before);
  });

  it('refuses a parameter on an update and changes nothing', async () => {
    const { id, etag } = await created();
    expectRefused(await h.request({ method: 'PATCH', url: `/v1/products/${id}?foo=1`, token, body: { name: 'Attic' }, headers: { 'if-match': etag } }), 'foo');
    const read = await h.request({ method: 'GET', url: `/v1/products/${id}`, token });
    expect(read.json().name).toBe('Loft');
    expect(read.headers.etag).toBe(etag);
  });

  it('refuses a parameter on a delete and keeps the record', async () => {
    const { id, etag } = await created();
    expectRefused(await h.request({ method: 'DELETE', url: `/v1/products/${id}?foo=1`, token, headers: { 'if-match': etag } }), 'foo');
    expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).statusCode).toBe(200);
  });

  it('still reads the list language on lists', async () => {
    await created();
    const listed = await h.request({ method: 'GET', url: '/v1/products?fields=name&sort=name&page=1&per_page=5', token });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(Object.keys(listed.json().items[0]).sort()).toEqual(['_id', 'name']);
  });

  it.each([
    ['GET', `/v1/webhooks/events`, 200],
    ['POST', `/v1/webhooks/${missingId}/rotate-secret`, 404],
    ['POST', `/v1/webhooks/${missingId}/test`, 404],
    ['POST', `/v1/webhooks/${missingId}/deliveries/d-1/retry`, 404],
    ['GET', `/v1/users/${missingId}/export`, 404],
    ['POST', `/v1/users/${missingId}/erase`, 404],
    ['GET', `/v1/retention-policies/${missingId}/preview`, 404],
  ])('refuses a parameter on %s %s, which answers %i without it', async (method, url, status) => {
    expect((await h.request({ method, url, token })).statusCode).toBe(status);
    expectRefused(await h.request({ method, url: `${url}?foo=1`, token }), 'foo');
  });

  it('refuses a parameter on a key rotation', async () => {
    const body = { public_key: '-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----' };
    expectRefused(await h.request({ method: 'POST', url: `/v1/api-clients/${missingId}/keys?overlap=1`, token, body }), 'overlap');
  });

  it('pages the received events and refuses any other parameter', async () => {
    const url = `/v1/webhooks/${missingId}/received`;
    expectRefused(await h.request({ method: 'GET', url: `${url}?page=1&sort=type`, token }), 'sort');
    expect(expectProblem(await h.request({ method: 'GET', url: `${url}?page=x`, token }), 400, 'validation_failed').errors).toEqual([
      { field: 'page', message: 'must be a whole number from 1 to 1000000' },
    ]);
    expect(expectProblem(await h.request({ method: 'GET', url: `${url}?per_page=1&per_page=2`, token }), 400, 'validation_failed').errors).toEqual([
      { field: 'per_page', message: 'given more than once' },
    ]);
    expect((await h.request({ method: 'GET', url: `${url}?page=1&per_page=10`, token })).statusCode).toBe(404);
  });

  it('refuses a parameter on the public sign-in steps and the webhook receiver', async () => {
    expectRefused(await h.request({ method: 'POST', url: '/v1/auth/otp/start?foo=1', body: { tenant_id: 't-1', channel: 'email', destination: 'a@example.com' } }), 'foo');
    expectRefused(await h.request({ method: 'POST', url: '/v1/auth/oauth/token?foo=1', body: { code: 'A'.repeat(43) } }), 'foo');
    expectRefused(await h.request({ method: 'POST', url: `/v1/webhooks/${missingId}/receive?foo=1`, body: { type: 'ping' } }), 'foo');
  });
});
