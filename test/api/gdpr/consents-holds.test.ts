import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const timeRange = { start_time: '2030-01-01T10:00:00.000Z', end_time: '2030-01-02T10:00:00.000Z' };

describe.each(dialects)('consents and legal holds on %s', (dialect) => {
  let h: Harness;
  let token = '';
  let userId = '';
  // The service's clock: the test moves it past a hold's expiry instead of sleeping.
  let offset = 0;
  const now = () => Date.now() + offset;

  async function post(resource: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, unknown>;
  }
  async function remove(resource: string, id: string) {
    const etag = String((await h.request({ method: 'GET', url: `/v1/${resource}/${id}`, token })).headers.etag);
    return h.request({ method: 'DELETE', url: `/v1/${resource}/${id}`, token, headers: { 'if-match': etag } });
  }

  beforeAll(async () => {
    h = await createHarness(dialect, { clock: { now } });
    token = await h.bearer(await h.tenant('T'), [...['users', 'bookings', 'products', 'legal-holds'].flatMap(crud), 'consents:list', 'consents:read', 'consents:create', 'users:write:email']);
    userId = String((await post('users', { email: 'c@example.com' }))._id);
  });
  afterAll(() => h.close());

  it('consents are append-only: PATCH and DELETE answer 405 with Allow, a withdrawal is a new record', async () => {
    const granted = await post('consents', { user_id: userId, purpose: 'newsletter', granted: true, source: 'web', policy_version: 'v1' });
    for (const method of ['PATCH', 'DELETE']) {
      const res = await h.request({ method, url: `/v1/consents/${String(granted._id)}`, token, body: method === 'PATCH' ? { granted: false } : undefined, headers: { 'if-match': '"x"' } });
      expect(res.statusCode).toBe(405);
      expect(String(res.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET']));
      expect(String(res.headers.allow)).not.toMatch(/PATCH|DELETE/);
      expect(res.json().code).toBe('method_not_allowed');
    }
    await post('consents', { user_id: userId, purpose: 'analytics', granted: true, policy_version: 'v1' });
    const withdrawn = await post('consents', { user_id: userId, purpose: 'newsletter', granted: false, source: 'preference centre', policy_version: 'v2' });
    // The documented "current decision for a purpose" query: newest record first, one of it.
    const current = await h.request({ method: 'GET', url: `/v1/consents?user_id=${userId}&purpose=newsletter&sort=-created_at,-_id&per_page=1`, token });
    expect(current.json().items).toEqual([expect.objectContaining({ _id: withdrawn._id, granted: false, policy_version: 'v2' })]);
    expect(current.json().total).toBe(2);
    const capabilities = await h.request({ method: 'GET', url: '/v1/capabilities', token: await h.bearer(null, ['capabilities:list']) });
    const names = (capabilities.json().items as { name: string }[]).map((c) => c.name);
    expect(names).toContain('consents:create');
    expect(names).not.toContain('consents:update');
    expect(names).not.toContain('consents:delete');
  });

  it('a hold blocks DELETE of the record (409 naming it); a hold on a user covers the records referencing the user; expiry lifts it', async () => {
    const product = await post('products', { name: 'P', address: 'a', city: 'c', zip_code: '1', total_items: 1 });
    const booking = await post('bookings', { product_id: product._id, user_id: userId, ...timeRange });
    const onProduct = await post('legal-holds', { resource: 'products', record_id: product._id, reason: 'audit' });
    const refused = await remove('products', String(product._id));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'legal_hold', holds: [onProduct._id] });

    const onUser = await post('legal-holds', { resource: 'users', record_id: userId, reason: 'litigation', expires_at: new Date(now() + 1500).toISOString() });
    const viaUser = await remove('bookings', String(booking._id));
    expect(viaUser.statusCode).toBe(409);
    expect(viaUser.json().holds).toEqual([onUser._id]);
    offset += 1600;
    expect((await remove('bookings', String(booking._id))).statusCode).toBe(204);

    expect((await remove('legal-holds', String(onProduct._id))).statusCode).toBe(204);
    expect((await remove('products', String(product._id))).statusCode).toBe(204);
  });
});
