import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };
const auditCaps = ['audit-logs:list', 'audit-logs:read', 'audit-logs:export'];
const capsA = [...crud('products'), ...auditCaps, ...crud('users'), 'users:write:date_of_birth', 'users:read:date_of_birth', 'users:write:email', 'users:read:email'];

describe.each(dialects)('audit trail on %s', (dialect) => {
  let h: Harness;
  let tenantA: string;
  let tokenA: string;
  let clientA: string;
  let tokenB: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    tenantA = await h.tenant('A');
    const tenantB = await h.tenant('B');
    const a = await h.client(tenantA, capsA);
    clientA = a.clientId;
    tokenA = await h.token(a);
    tokenB = await h.bearer(tenantB, auditCaps);
  });
  afterAll(() => h.close());

  async function entriesFor(recordId: string, token = tokenA) {
    const res = await h.request({ method: 'GET', url: `/v1/audit-logs/?record_id=${recordId}&sort=created_at`, token });
    expect(res.statusCode).toBe(200);
    return res.json().items as Record<string, unknown>[];
  }

  it('records create, update and delete with actor, tenant, ip, request id and values', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/products', token: tokenA, body: product });
    const id = created.json()._id as string;
    const patched = await h.request({
      method: 'PATCH',
      url: `/v1/products/${id}`,
      token: tokenA,
      body: { status: 'maintenance', city: 'Berlin' },
      headers: { 'if-match': String(created.headers.etag) },
    });
    expect(patched.statusCode).toBe(200);
    const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token: tokenA, headers: { 'if-match': String(patched.headers.etag) } });
    expect(deleted.statusCode).toBe(204);

    const [create, update, remove] = await entriesFor(id);
    for (const [entry, response] of [
      [create, created],
      [update, patched],
      [remove, deleted],
    ] as const) {
      expect(entry).toMatchObject({ tenant_id: tenantA, actor_type: 'client', actor_id: clientA, client_ip: '127.0.0.1', resource: 'products', record_id: id, category: 'data' });
      expect(entry?.request_id).toBe(response.headers['x-request-id']);
      expect(String(entry?.created_at)).toMatch(/Z$/);
    }
    expect(create).toMatchObject({ action: 'create', old_values: null });
    expect(create?.new_values).toMatchObject({ ...product, _id: id, status: 'active' });
    // Only the fields that changed: city was sent with its old value.
    expect(update).toMatchObject({ action: 'update', old_values: { status: 'active' }, new_values: { status: 'maintenance' } });
    expect(remove).toMatchObject({ action: 'delete', new_values: null });
    expect(remove?.old_values).toMatchObject({ ...product, _id: id, status: 'maintenance', tenant_id: tenantA });
  });

  it('reads one entry by id and hides every entry from another tenant', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/products', token: tokenA, body: product });
    const [entry] = await entriesFor(created.json()._id as string);
    const one = await h.request({ method: 'GET', url: `/v1/audit-logs/${String(entry?._id)}`, token: tokenA });
    expect(one.statusCode).toBe(200);
    expect(one.json()._id).toBe(entry?._id);
    expect((await h.request({ method: 'GET', url: `/v1/audit-logs/${String(entry?._id)}`, token: tokenB })).statusCode).toBe(404);
    expect(await entriesFor(created.json()._id as string, tokenB)).toEqual([]);
    const exported = await h.request({ method: 'GET', url: '/v1/audit-logs/export', token: tokenB });
    const lines = exported.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((entry) => entry.tenant_id !== lines[0]?.tenant_id || entry.tenant_id === tenantA)).toEqual([]);
  });

  it('keeps special-category values out of the trail', async () => {
    const res = await h.request({ method: 'POST', url: '/v1/users', token: tokenA, body: { email: 'a@example.com', date_of_birth: '1990-01-01' } });
    expect(res.statusCode).toBe(201);
    const [entry] = await entriesFor(res.json()._id as string);
    expect((entry?.new_values as Record<string, unknown>).date_of_birth).toBe('[redacted]');
    expect((entry?.new_values as Record<string, unknown>).email).toBe('a@example.com');
    // A reader without users:read:date_of_birth does not even see that the field was set.
    const [unprivileged] = await entriesFor(res.json()._id as string, await h.bearer(tenantA, auditCaps));
    expect(unprivileged?.new_values).not.toHaveProperty('date_of_birth');
    expect(unprivileged?.new_values).not.toHaveProperty('email');
  });

  it('has no update or delete route, and storage refuses changes too', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/products', token: tokenA, body: product });
    const [entry] = await entriesFor(created.json()._id as string);
    const id = String(entry?._id);
    expect((await h.request({ method: 'PATCH', url: `/v1/audit-logs/${id}`, token: tokenA, body: { action: 'x' } })).statusCode).toBe(405);
    expect((await h.request({ method: 'DELETE', url: `/v1/audit-logs/${id}`, token: tokenA })).statusCode).toBe(405);
    expect((await h.request({ method: 'POST', url: '/v1/audit-logs', token: tokenA, body: {} })).statusCode).toBe(405);
    await expect(sql`update audit_logs set action = 'forged' where _id = ${id}`.execute(h.database.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_logs where _id = ${id}`.execute(h.database.db)).rejects.toThrow(/append-only/);
    expect((await entriesFor(created.json()._id as string))[0]?.action).toBe('create');
  });

  it('writes the rotate-key sub-operation without key material', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    // Re-keying a client needs every capability it holds (the grant ceiling).
    const root = await h.bearer(null, ['api-clients:rotate-key', ...capsA]);
    const res = await h.request({ method: 'POST', url: `/v1/api-clients/${clientA}/keys`, token: root, body: { public_key: pem, kid: 'second' } });
    expect(res.statusCode).toBe(201);
    const list = await h.request({ method: 'GET', url: `/v1/audit-logs/?record_id=${clientA}&action=rotate-key`, token: root });
    const [entry] = list.json().items as Record<string, unknown>[];
    expect(entry).toMatchObject({ action: 'rotate-key', resource: 'api-clients', actor_type: 'client' });
    expect(JSON.stringify(entry)).not.toContain('BEGIN PUBLIC KEY');
    expect((entry?.new_values as Record<string, unknown>).kid).toBe('second');
  });
});
