import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from 'jose';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../src/security/access-token.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import type { TestClient } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';

const day = 86_400_000;
const epoch = () => Math.floor(Date.now() / 1000);
const adminCapabilities = ['api-clients:create', 'api-clients:read', 'api-clients:list', 'api-clients:update', 'api-clients:rotate-key', 'products:list', 'products:read'];

interface KeyView {
  readonly kid: string;
  readonly active_until: string | null;
}

const pems: ReadonlyArray<readonly [string, string]> = [
  ['an RSA public key', generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString()],
  ['an Ed25519 public key', generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString()],
  ['an EC private key', generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()],
  ['a PEM of garbage', '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END PUBLIC KEY-----\n'],
  ['text that is no PEM', 'hello'],
];

describe.each(dialects)('API clients and keys on %s', (dialect) => {
  let h: AuthHarness;
  let tenant: string;
  let otherTenant: string;
  let admin: string;

  const create = (body: Record<string, unknown>, token = admin, headers: Record<string, string> = {}) => h.request({ method: 'POST', url: '/v1/api-clients/', token, body, headers });
  const asClient = (id: string, key: TestClient['key'], kid: string): TestClient => ({ clientId: id, key, kid, tenantId: tenant });

  beforeAll(async () => {
    h = await createAuthHarness(dialect);
    tenant = await h.tenant('Acme');
    otherTenant = await h.tenant('Globex');
    admin = await h.bearer(tenant, adminCapabilities);
  });
  afterAll(() => h.close());

  it('creates a client whose kid defaults to the RFC 7638 thumbprint and which obtains tokens', async () => {
    const key = clientKeyPair();
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: key.publicPem });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    const jwk = key.privateKey.export({ format: 'jwk' }) as JWK;
    const thumbprint = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, 'sha256');
    expect(body).toMatchObject({ client_id: body._id, tenant_id: tenant, level: 'tenant', capabilities: ['products:list'], keys: [{ kid: thumbprint, alg: 'ES256', thumbprint, active_until: null }] });
    expect(body).not.toHaveProperty('public_key');
    expect((await h.tokenRequest(await h.assertionForm(asClient(body._id, key, thumbprint)))).statusCode).toBe(200);
  });

  it('keeps an explicit kid', async () => {
    const key = clientKeyPair('ES384');
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: key.publicPem, kid: 'robot-2026-01' });
    expect(res.statusCode).toBe(201);
    expect(res.json().keys).toMatchObject([{ kid: 'robot-2026-01', alg: 'ES384' }]);
    expect((await h.tokenRequest(await h.assertionForm(asClient(res.json()._id, key, 'robot-2026-01')))).statusCode).toBe(200);
  });

  it.each(['kid with space', 'a\u0000b', 'é'])('refuses the kid %j with 400 on field kid', async (kid) => {
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: clientKeyPair().publicPem, kid });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('kid');
  });

  // Whatever is stored must load into the allowlist on every later request (a zone id once
  // passed validation and then made every token request for the client a 500).
  it.each(['fe80::1%eth0/64', '010.0.0.1/8', '10.0.0.0/33', '::1/129', 'not-an-ip'])('refuses the allowlist entry %j with 400 on ip_allowlist', async (cidr) => {
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: clientKeyPair().publicPem, ip_allowlist: [cidr] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('ip_allowlist');
  });

  it('accepts IPv4 and IPv6 CIDRs and bare addresses in the allowlist', async () => {
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: clientKeyPair().publicPem, ip_allowlist: ['127.0.0.0/8', '2001:db8::/32', '::1', '192.0.2.7'] });
    expect(res.statusCode).toBe(201);
  });

  it.each(pems)('refuses %s with 400 on field public_key and creates nothing', async (_name, pem) => {
    const before = (await h.request({ method: 'GET', url: '/v1/api-clients', token: admin })).json().total;
    const res = await create({ name: 'robot', capabilities: ['products:list'], public_key: pem });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors[0].field).toBe('public_key');
    expect((await h.request({ method: 'GET', url: '/v1/api-clients', token: admin })).json().total).toBe(before);
  });

  it('refuses capabilities beyond the caller’s own with 403 insufficient_scope', async () => {
    const res = await create({ name: 'escalator', capabilities: ['products:list', 'products:delete'], public_key: clientKeyPair().publicPem });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="booking-api", error="insufficient_scope", scope="products:delete"');
    const patched = await h.request({ method: 'GET', url: '/v1/api-clients', token: admin });
    expect(patched.json().items.every((c: { name: string }) => c.name !== 'escalator')).toBe(true);
  });

  it('refuses a PATCH that raises a client’s capabilities beyond the caller’s with 403', async () => {
    const created = await create({ name: 'patchee', capabilities: ['products:list'], public_key: clientKeyPair().publicPem });
    const res = await h.request({
      method: 'PATCH',
      url: `/v1/api-clients/${created.json()._id}`,
      token: admin,
      body: { capabilities: ['products:list', 'products:delete'] },
      headers: { 'if-match': String(created.headers.etag) },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
  });

  it('gives a client the level of its node, and its tokens carry it', async () => {
    const partner = await h.tenant('Partner', 'partner');
    const cases = [
      [null, 'system', 'system'],
      [partner, 'partner', partner],
      [tenant, 'tenant', tenant],
    ] as const;
    for (const [node, level, tenantId] of cases) {
      const claims = decodeJwt(await h.token(await h.client(node, ['products:list'])));
      expect({ level: claims.level, tenant_id: claims.tenant_id }).toEqual({ level, tenant_id: tenantId });
    }
  });

  it('keeps a tenant-level caller inside its own tenant', async () => {
    const key = clientKeyPair().publicPem;
    const elsewhere = await create({ name: 'robot', capabilities: ['products:list'], public_key: key }, admin, { 'x-tenant-id': otherTenant });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json().code).toBe('tenant_forbidden');
    const smuggled = await create({ name: 'robot', capabilities: ['products:list'], public_key: key, tenant_id: otherTenant });
    expect(smuggled.statusCode).toBe(400);
  });

  it('rotates keys: 30-day default overlap, overlap_days respected, both keys valid meanwhile', async () => {
    const first = clientKeyPair();
    const created = (await create({ name: 'rotor', capabilities: ['products:list'], public_key: first.publicPem, kid: 'k1' })).json();
    const second = clientKeyPair();
    const started = Date.now();
    const rotated = await h.request({ method: 'POST', url: `/v1/api-clients/${created._id}/keys`, token: admin, body: { public_key: second.publicPem, kid: 'k2' } });
    expect(rotated.statusCode).toBe(201);
    expect(rotated.json()).toMatchObject({ client_id: created._id, kid: 'k2', retired: [{ kid: 'k1' }] });
    const keysOf = async () => (await h.request({ method: 'GET', url: `/v1/api-clients/${created._id}`, token: admin })).json().keys as KeyView[];
    const afterFirst = await keysOf();
    expect(afterFirst.map((k) => k.kid)).toEqual(['k1', 'k2']);
    expect(Date.parse(String(afterFirst[0]?.active_until)) - started).toBeGreaterThanOrEqual(30 * day - 5000);
    expect(Date.parse(String(afterFirst[0]?.active_until)) - started).toBeLessThanOrEqual(30 * day + 5000);
    expect(afterFirst[1]?.active_until).toBeNull();
    for (const [key, kid] of [
      [first, 'k1'],
      [second, 'k2'],
    ] as const) {
      expect((await h.tokenRequest(await h.assertionForm(asClient(created._id, key, kid)))).statusCode).toBe(200);
    }

    const third = clientKeyPair();
    const again = await h.request({ method: 'POST', url: `/v1/api-clients/${created._id}/keys`, token: admin, body: { public_key: third.publicPem, kid: 'k3', overlap_days: 7 } });
    expect(again.statusCode).toBe(201);
    const afterSecond = await keysOf();
    // Every older key now ends within the new, shorter overlap: k1's 30 days shrink to 7.
    expect(afterSecond[0]?.active_until).toBe(afterSecond[1]?.active_until);
    expect(Date.parse(String(afterSecond[1]?.active_until)) - started).toBeLessThanOrEqual(7 * day + 5000);
    expect(Date.parse(String(afterSecond[1]?.active_until)) - started).toBeGreaterThanOrEqual(7 * day - 5000);
    expect((await h.tokenRequest(await h.assertionForm(asClient(created._id, third, 'k3')))).statusCode).toBe(200);
  });

  it('refuses a duplicate kid and a bad key body with 400', async () => {
    const key = clientKeyPair();
    const created = (await create({ name: 'dup', capabilities: ['products:list'], public_key: key.publicPem, kid: 'same' })).json();
    const dup = await h.request({ method: 'POST', url: `/v1/api-clients/${created._id}/keys`, token: admin, body: { public_key: clientKeyPair().publicPem, kid: 'same' } });
    expect({ status: dup.statusCode, field: dup.json().errors?.[0]?.field }).toEqual({ status: 400, field: 'kid' });
    const rsa = await h.request({ method: 'POST', url: `/v1/api-clients/${created._id}/keys`, token: admin, body: { public_key: pems[0]?.[1] } });
    expect({ status: rsa.statusCode, field: rsa.json().errors?.[0]?.field }).toEqual({ status: 400, field: 'public_key' });
  });

  it('answers 404 for another tenant’s client', async () => {
    const foreign = await h.client(otherTenant, ['products:list']);
    const rotate = await h.request({ method: 'POST', url: `/v1/api-clients/${foreign.clientId}/keys`, token: admin, body: { public_key: clientKeyPair().publicPem } });
    expect(rotate.statusCode).toBe(404);
    expect((await h.request({ method: 'GET', url: `/v1/api-clients/${foreign.clientId}`, token: admin })).statusCode).toBe(404);
    for (const id of ['%00', 'no-such-client', 'x'.repeat(150)]) {
      const res = await h.request({ method: 'POST', url: `/v1/api-clients/${id}/keys`, token: admin, body: { public_key: clientKeyPair().publicPem } });
      expect({ id, status: res.statusCode }).toEqual({ id, status: 404 });
    }
  });

  it('lists capabilities at GET /v1/capabilities only with capabilities:list', async () => {
    expect((await h.request({ method: 'GET', url: '/v1/capabilities', token: admin })).statusCode).toBe(403);
    const res = await h.request({ method: 'GET', url: '/v1/capabilities', token: await h.bearer(tenant, ['capabilities:list']) });
    expect(res.statusCode).toBe(200);
    const names = (res.json().items as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['bookings:read', 'api-clients:rotate-key', 'capabilities:list', 'security:read']));
    expect(res.json().total).toBe(names.length);
    // The end-user roles and their sets, as the user principal applies them.
    const roles = res.json().roles as { name: string; reach: string; capabilities: string[] }[];
    expect(roles.map((r) => [r.name, r.reach])).toEqual([
      ['guest', 'own'],
      ['staff', 'tenant'],
      ['admin', 'tenant'],
    ]);
    expect(roles.find((r) => r.name === 'guest')?.capabilities).toEqual(expect.arrayContaining(['bookings:create', 'bookings:read']));
    expect(roles.find((r) => r.name === 'guest')?.capabilities).not.toContain('api-clients:create');
    expect(roles.find((r) => r.name === 'admin')?.capabilities.sort()).toEqual([...names].sort());
    for (const role of roles) for (const name of role.capabilities) expect(names).toContain(name);
  });

  it('publishes only public members in the JWKS', async () => {
    const res = await h.request({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    for (const key of res.json().keys as Record<string, unknown>[]) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-521', alg: 'ES512', use: 'sig' });
    }
  });

  it.each(['/.well-known/oauth-authorization-server/v1', '/.well-known/oauth-authorization-server'])('serves RFC 8414 metadata at %s', async (path) => {
    const res = await h.request({ method: 'GET', url: path });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      issuer: 'http://api.test/v1',
      token_endpoint: 'http://api.test/v1/auth/token',
      jwks_uri: 'http://api.test/.well-known/jwks.json',
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'ES384', 'ES512'],
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
      scopes_supported: expect.arrayContaining(['bookings:read', 'api-clients:create']),
    });
  });

  it('keeps verifying tokens of the previous signing key after a rotation', async () => {
    const client = await h.client(tenant, ['products:list']);
    const oldKid = h.keys.current(epoch()).kid;
    const grant = { issuer: h.config.apiBase, audience: h.config.apiBase, subject: client.clientId, clientId: client.clientId, scope: 'products:list', tenantId: tenant, level: 'tenant' as const };
    const { token: old } = await issueAccessToken(h.keys, grant, epoch(), 900);
    const newKid = await h.keys.rotate(epoch());
    expect(newKid).not.toBe(oldKid);
    const jwks = (await h.request({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys as { kid: string }[];
    expect(jwks.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect((await h.request({ method: 'GET', url: '/v1/products', token: old })).statusCode).toBe(200);
    const fresh = await h.token(client);
    expect(decodeProtectedHeader(fresh).kid).toBe(newKid);
    expect((await h.request({ method: 'GET', url: '/v1/products', token: fresh })).statusCode).toBe(200);
  });
});
