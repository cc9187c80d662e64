import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userRelations } from '../../../src/gdpr/erase-user.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const timeRange = { start_time: '2030-01-01T10:00:00.000Z', end_time: '2030-01-02T10:00:00.000Z' };
type Json = Record<string, unknown>;

describe.each(dialects)('subject export on %s', (dialect) => {
  let h: Harness;
  let token = '';
  const mine: Record<string, string[]> = {};
  let userA = '';
  let userB = '';

  async function post(resource: string, body: unknown): Promise<Json> {
    const res = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Json;
  }

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('T'), [
      ...['users', 'bookings', 'orders', 'subscriptions', 'products'].flatMap(crud),
      'consents:create',
      'users:export',
      'users:write:email',
      'users:read:email',
    ]);
    userA = String((await post('users', { email: 'a@example.com', first_name: 'Ada' }))._id);
    userB = String((await post('users', { email: 'b@example.com', first_name: 'Bob' }))._id);
    const product = String((await post('products', { name: 'P', address: 'a', city: 'c', zip_code: '1', total_items: 10 }))._id);
    const bodies: Record<string, (user: string) => Json> = {
      bookings: (user) => ({ product_id: product, user_id: user, ...timeRange }),
      orders: (user) => ({ product_id: product, user_id: user, ...timeRange }),
      subscriptions: (user) => ({ product_id: product, user_id: user }),
      consents: (user) => ({ user_id: user, purpose: 'newsletter', granted: true }),
    };
    for (const [resource, body] of Object.entries(bodies)) {
      mine[resource] = [];
      for (let i = 0; i < 3; i += 1) mine[resource]?.push(String((await post(resource, body(userA)))._id));
      await post(resource, body(userB));
    }
  });
  afterAll(() => h.close());

  it('streams one JSON document with the user, exactly their records in every referencing resource, and the audit about them', async () => {
    const res = await h.request({ method: 'GET', url: `/v1/users/${userA}/export`, token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const doc = res.json() as { user: Json; records: Record<string, Json[]>; audit: Json[]; generated_at: string };
    expect(doc.user).toMatchObject({ _id: userA, email: 'a@example.com', first_name: 'Ada' });
    expect(Object.keys(doc.records).sort()).toEqual([...new Set(userRelations().map((r) => r.resource.name))].sort());
    for (const [resource, ids] of Object.entries(mine)) {
      expect(doc.records[resource]?.map((r) => r._id).sort(), resource).toEqual([...ids].sort());
    }
    const about = new Set([userA, ...Object.values(mine).flat()]);
    expect(doc.audit.length).toBe(about.size);
    expect(doc.audit.every((entry) => about.has(String(entry.record_id)))).toBe(true);
    expect(JSON.stringify(doc)).not.toContain('b@example.com');
    expect(Date.parse(doc.generated_at)).not.toBeNaN();
  });

  it('exports a soft-deleted user (still held until purged) with its deleted_at, to its own tenant only', async () => {
    const user = await post('users', { email: 'gone@example.com', first_name: 'Gone' });
    const etag = (await h.request({ method: 'GET', url: `/v1/users/${String(user._id)}`, token })).headers.etag;
    const deleted = await h.request({ method: 'DELETE', url: `/v1/users/${String(user._id)}`, token, headers: { 'if-match': String(etag) } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await h.request({ method: 'GET', url: `/v1/users/${String(user._id)}`, token })).statusCode).toBe(404);
    const res = await h.request({ method: 'GET', url: `/v1/users/${String(user._id)}/export`, token });
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json() as { user: Json; audit: Json[] };
    expect(doc.user).toMatchObject({ _id: user._id, email: 'gone@example.com', first_name: 'Gone', deleted_at: expect.any(String) });
    expect(Date.parse(String(doc.user.deleted_at))).not.toBeNaN();
    expect(doc.audit.map((entry) => entry.action).sort()).toEqual(['create', 'delete']);
    // A live user's export is the API read: no deleted_at member.
    expect((await h.request({ method: 'GET', url: `/v1/users/${userA}/export`, token })).json().user).not.toHaveProperty('deleted_at');
    const stranger = await h.bearer(await h.tenant('Other'), ['users:export', 'users:read:email']);
    expect((await h.request({ method: 'GET', url: `/v1/users/${String(user._id)}/export`, token: stranger })).statusCode).toBe(404);
  });

  it('exports the soft-deleted records of the user too (still held until purged), each with its deleted_at', async () => {
    const user = String((await post('users', { email: 'keeps@example.com', first_name: 'Kim' }))._id);
    const product = String((await post('products', { name: 'Q', address: 'a', city: 'c', zip_code: '1', total_items: 10 }))._id);
    const live = String((await post('bookings', { product_id: product, user_id: user, ...timeRange }))._id);
    const gone = String((await post('bookings', { product_id: product, user_id: user, ...timeRange }))._id);
    const etag = (await h.request({ method: 'GET', url: `/v1/bookings/${gone}`, token })).headers.etag;
    expect((await h.request({ method: 'DELETE', url: `/v1/bookings/${gone}`, token, headers: { 'if-match': String(etag) } })).statusCode).toBe(204);
    const doc = (await h.request({ method: 'GET', url: `/v1/users/${user}/export`, token })).json() as { records: Record<string, Json[]> };
    const bookings = doc.records.bookings ?? [];
    expect(bookings.map((record) => record._id).sort()).toEqual([live, gone].sort());
    expect(bookings.find((record) => record._id === gone)).toMatchObject({ ...timeRange, user_id: user, deleted_at: expect.any(String) });
    expect(bookings.find((record) => record._id === live)).not.toHaveProperty('deleted_at');
  });

  it('needs users:export, hides sensitive fields without their capability, and answers 404 for unknown users', async () => {
    const plain = await h.bearer((await h.request({ method: 'GET', url: `/v1/users/${userA}`, token })).json().tenant_id, ['users:export']);
    const doc = (await h.request({ method: 'GET', url: `/v1/users/${userA}/export`, token: plain })).json();
    expect(doc.user.email).toBeUndefined();
    expect(doc.user.first_name).toBe('Ada');
    const denied = await h.request({ method: 'GET', url: `/v1/users/${userA}/export`, token: await h.bearer(null, ['users:read']) });
    expect(denied.statusCode).toBe(403);
    const missing = await h.request({ method: 'GET', url: '/v1/users/01890000-0000-7000-8000-000000000000/export', token });
    expect(missing.statusCode).toBe(404);
  });
});
