import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/** Sensitive fields (users.email, phone, date_of_birth) reach only callers holding `users:read:<field>`. */
describe.each(dialects)('field-level read access on %s', (dialect) => {
  let h: Harness;
  let id = '';
  const token = { all: '', email: '', none: '' };

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('T');
    token.all = await h.bearer(tenant, [...crud('users'), 'users:write:email', 'users:write:phone', 'users:read:email', 'users:read:phone']);
    token.email = await h.bearer(tenant, ['users:read', 'users:list', 'users:read:email']);
    token.none = await h.bearer(tenant, ['users:read', 'users:list']);
    const created = await h.request({ method: 'POST', url: '/v1/users', token: token.all, body: { email: 'guest@example.com', phone: '+4930123456' } });
    expect(created.statusCode).toBe(201);
    id = String(created.json()._id);
  });
  afterAll(() => h.close());

  it('reads and lists show each caller only the sensitive fields it may read, request after request', async () => {
    for (let round = 0; round < 2; round++) {
      for (const [who, email, phone] of [
        ['all', 'guest@example.com', '+4930123456'],
        ['none', undefined, undefined],
        ['email', 'guest@example.com', undefined],
      ] as const) {
        const read = await h.request({ method: 'GET', url: `/v1/users/${id}`, token: token[who] });
        expect(read.statusCode).toBe(200);
        expect([read.json().email, read.json().phone]).toEqual([email, phone]);
        const list = await h.request({ method: 'GET', url: '/v1/users', token: token[who] });
        const item = (list.json().items as Record<string, unknown>[]).find((u) => u._id === id);
        expect([item?.email, item?.phone]).toEqual([email, phone]);
      }
    }
  });

  it('refuses writing a sensitive field without its write capability: 403 field_forbidden naming it in WWW-Authenticate', async () => {
    const writer = await h.bearer(await h.tenant('Writers'), ['users:create']);
    const refused = await h.request({ method: 'POST', url: '/v1/users', token: writer, body: { email: 'someone@example.com', phone: '+4930999999' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('field_forbidden');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="booking-api", error="insufficient_scope", scope="users:write:email users:write:phone"');
  });
});
