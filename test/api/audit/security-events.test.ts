import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { signAssertion } from '../../support/keys.js';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(dialects)('security events in the audit trail on %s', (dialect) => {
  let h: Harness;
  let reader: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    reader = await h.bearer(null, ['audit-logs:list']);
  });
  afterAll(() => h.close());

  async function securityEntries(action: string, clientId?: string): Promise<Record<string, unknown>[]> {
    await h.app.securityEvents.flush();
    const filter = clientId ? `&record_id=${clientId}` : '';
    const res = await h.request({ method: 'GET', url: `/v1/audit-logs/?category=security&action=${action}${filter}&per_page=100`, token: reader });
    expect(res.statusCode).toBe(200);
    return res.json().items as Record<string, unknown>[];
  }

  async function tokenRequest(assertion: string, clientId: string) {
    return h.app.server.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: form,
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }).toString(),
    });
  }

  it('records issued tokens, refusals with their private reason, and replays', async () => {
    const tenant = await h.tenant('T');
    const client = await h.client(tenant, ['products:list']);
    const assertion = await signAssertion(client.key, client.clientId, h.config.tokenEndpoint, { kid: client.kid });
    expect((await tokenRequest(assertion, client.clientId)).statusCode).toBe(200);
    expect((await tokenRequest(assertion, client.clientId)).statusCode).toBe(401);
    const wrongAud = await signAssertion(client.key, client.clientId, 'https://elsewhere.example/token', { kid: client.kid });
    const refusedRes = await tokenRequest(wrongAud, client.clientId);
    expect(refusedRes.json().error_description).not.toMatch(/aud/i);

    const [issued] = await securityEntries('token_issued', client.clientId);
    expect(issued).toMatchObject({
      category: 'security',
      actor_type: 'client',
      actor_id: client.clientId,
      tenant_id: tenant,
      client_ip: '127.0.0.1',
      new_values: { scope: 'products:list', token_type: 'Bearer' },
    });
    const [replay] = await securityEntries('replay_detected', client.clientId);
    expect(replay?.new_values).toMatchObject({ error: 'invalid_client', reason: 'client assertion jti replayed' });
    const [refused] = await securityEntries('token_refused', client.clientId);
    expect(String((refused?.new_values as Record<string, unknown>).reason)).toMatch(/aud/i);
  });

  it('records refusals for unknown clients under the system actor', async () => {
    const client = await h.client(null, ['products:list']);
    const assertion = await signAssertion(client.key, 'no-such-client', h.config.tokenEndpoint);
    expect((await tokenRequest(assertion, 'no-such-client')).statusCode).toBe(401);
    const entries = await securityEntries('token_refused');
    expect(entries.some((e) => e.actor_type === 'system' && (e.new_values as Record<string, unknown>).claimed_client_id === 'no-such-client')).toBe(true);
  });

  it('writes a batch larger than one INSERT completely, in the order the events happened', async () => {
    const clientId = `batch-${dialect}`;
    const count = 450; // three multi-row INSERTs of at most 200
    const recorded: Promise<void>[] = [];
    for (let i = 0; i < count; i += 1) {
      recorded.push(h.app.securityEvents.record({ name: 'token_refused', clientId, tenantId: null, clientIp: '192.0.2.1', requestId: `req-${i}`, details: { n: i } }));
    }
    await Promise.all(recorded);
    const seen: number[] = [];
    for (let page = 1; page <= 5; page += 1) {
      const res = await h.request({ method: 'GET', url: `/v1/audit-logs/?category=security&record_id=${clientId}&sort=_id&per_page=100&page=${page}`, token: reader });
      expect(res.statusCode).toBe(200);
      for (const item of res.json().items as { new_values: { n: number }; request_id: string }[]) {
        expect(item.request_id).toBe(`req-${item.new_values.n}`);
        seen.push(item.new_values.n);
      }
    }
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it('records capability denials and IP refusals', async () => {
    const client = await h.client(null, ['products:list']);
    const token = await h.token(client);
    expect((await h.request({ method: 'POST', url: '/v1/products', token, body: {} })).statusCode).toBe(403);
    const [denied] = await securityEntries('capability_denied', client.clientId);
    expect(denied?.new_values).toMatchObject({ capability: 'products:create', method: 'POST', route: '/v1/products' });

    const fenced = await h.client(null, ['products:list'], { ipAllowlist: ['10.0.0.0/8'] });
    const assertion = await signAssertion(fenced.key, fenced.clientId, h.config.tokenEndpoint, { kid: fenced.kid });
    expect((await tokenRequest(assertion, fenced.clientId)).statusCode).toBe(401);
    const [ipRefused] = await securityEntries('token_refused', fenced.clientId);
    expect(String((ipRefused?.new_values as Record<string, unknown>).reason)).toContain('allowlist');
  });
});

describe('IP refusals on API calls are audited', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite', { env: { TRUST_PROXY: '127.0.0.1/32' } });
  });
  afterAll(() => h.close());

  it('records ip_refused when a token is used from outside the allowlist', async () => {
    const fenced = await h.client(null, ['products:list', 'audit-logs:list'], { ipAllowlist: ['10.0.0.0/8'] });
    const assertion = await signAssertion(fenced.key, fenced.clientId, h.config.tokenEndpoint, { kid: fenced.kid });
    const issued = await h.app.server.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { ...form, 'x-forwarded-for': '10.1.2.3' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: fenced.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }).toString(),
    });
    expect(issued.statusCode).toBe(200);
    const token = (issued.json() as { access_token: string }).access_token;
    expect((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode).toBe(403);
    expect((await h.request({ method: 'GET', url: '/v1/products', token, headers: { 'x-forwarded-for': '10.9.9.9' } })).statusCode).toBe(200);
    await h.app.securityEvents.flush();
    const rows = await h.database.db.selectFrom('audit_logs').selectAll().where('action', '=', 'ip_refused').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.record_id).toBe(fenced.clientId);
  });
});
