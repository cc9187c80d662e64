import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccessToken } from '../../../src/security/access-token.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness as Harness } from '../../support/auth-harness.js';
import { dpopKey, dpopProof } from '../../support/dpop.js';
import { startRedis } from '../../support/redis-server.js';
import type { RedisServer } from '../../support/redis-server.js';

const attacker = '203.0.113.7';
const bystander = '198.51.100.20';
const forgingKey = generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey;

/**
 * Garbage that costs the most to refuse: the service's real `kid`, claims that pass every
 * cheap check, and a P-521 signature by another key.
 */
async function garbageToken(h: Harness, jti: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const kid = h.keys.current(now).kid;
  const claims = { iss: h.config.apiBase, aud: h.config.apiBase, sub: 'c', client_id: 'c', scope: 'products:list', tenant_id: 'system', level: 'system', jti, iat: now, exp: now + 900 };
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES512', kid, typ: 'at+jwt' }).sign(forgingKey);
}

function get(h: Harness, remoteAddress: string, authorization?: string) {
  return h.app.server.inject({ method: 'GET', url: '/v1/products', remoteAddress, headers: authorization ? { authorization } : {} });
}

async function metric(h: Harness, name: string): Promise<number> {
  const text = (await h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const checks = (result: 'valid' | 'invalid') => `access_token_signature_checks_total{result="${result}"}`;

describe('pre-authentication limit with the documented default (100 refusals per 60 s per address)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createAuthHarness('sqlite', { env: { RATE_LIMIT_ENABLED: 'true' } });
  });
  afterAll(() => h.close());

  it('answers 429 from the 101st garbage token of one address on, before any signature check', async () => {
    const tokens = await Promise.all(Array.from({ length: 110 }, (_, i) => garbageToken(h, `g-${i}`)));
    const statuses: number[] = [];
    for (const token of tokens.slice(0, 100)) statuses.push((await get(h, attacker, `Bearer ${token}`)).statusCode);
    expect(new Set(statuses)).toEqual(new Set([401]));
    const checked = await metric(h, checks('invalid'));
    expect(checked).toBe(100);

    const refused = await get(h, attacker, `Bearer ${tokens[100] as string}`);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toBe('"unauthenticated";q=100;w=60');
    for (const token of tokens.slice(101)) expect((await get(h, attacker, `Bearer ${token}`)).statusCode).toBe(429);
    // Nor a missing or malformed header: the address is refused before anything is parsed.
    expect((await get(h, attacker)).statusCode).toBe(429);
    expect((await get(h, attacker, 'Basic abc')).statusCode).toBe(429);
    expect(await metric(h, checks('invalid'))).toBe(100);
    expect(await metric(h, 'rate_limit_refusals_total{group="unauthenticated"}')).toBe(12);
  });

  it('leaves other addresses alone, and a token this instance already verified goes through', async () => {
    expect((await get(h, bystander, `Bearer ${await garbageToken(h, 'other')}`)).statusCode).toBe(401);
    const token = await h.bearer(null, ['products:list']);
    // Issued here, so already verified: the blocked address's own valid client keeps working.
    expect((await get(h, attacker, `Bearer ${token}`)).statusCode).toBe(200);
  });

  it('reports the limit in the security posture', async () => {
    const reader = await h.bearer(null, ['security:read']);
    const posture = await h.app.server.inject({ method: 'GET', url: '/v1/security/json', headers: { authorization: `Bearer ${reader}` } });
    expect(posture.json().rate_limits.groups.unauthenticated).toEqual({ limit: 100, window_seconds: 60, keyed_by: 'source IP' });
  });
});

describe('refused-token cache', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createAuthHarness('sqlite', { env: { RATE_LIMIT_ENABLED: 'false' } });
  });
  afterAll(() => h.close());

  it('verifies a repeated garbage token once; the repeats are refused from memory', async () => {
    const token = await garbageToken(h, 'repeat');
    for (let i = 0; i < 50; i++) {
      const res = await get(h, attacker, `Bearer ${token}`);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(await metric(h, checks('invalid'))).toBe(1);
    expect(await metric(h, 'access_token_cached_refusals_total')).toBe(49);
  });

  it('verifies a valid token it has not seen once, then serves it from the claims cache', async () => {
    const now = Math.floor(Date.now() / 1000);
    // Signed with the service's key but not through this instance (as another instance would).
    const { token } = await issueAccessToken(
      h.keys,
      { issuer: h.config.apiBase, audience: h.config.apiBase, subject: 'x', clientId: 'x', scope: 'products:list', tenantId: null, level: 'system' },
      now,
      900,
    );
    const before = await metric(h, checks('valid'));
    // The client does not exist, so the request is refused after the token verified.
    for (let i = 0; i < 3; i++) expect((await get(h, attacker, `Bearer ${token}`)).statusCode).toBe(401);
    expect((await metric(h, checks('valid'))) - before).toBe(1);
  });
});

describe('pre-authentication limit counts every refused authentication', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createAuthHarness('sqlite', { env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_UNAUTHENTICATED: '3', RATE_LIMIT_READS: '1000' } });
  });
  afterAll(() => h.close());

  it('counts missing headers, malformed headers and bad DPoP proofs alike', async () => {
    const client = await h.client(null, ['products:list']);
    const key = await dpopKey();
    const issued = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint }) } });
    expect(issued.statusCode).toBe(200);
    const token = issued.json().access_token as string;
    const htu = `${h.config.publicUrl}/v1/products`;
    const call = async (proofKey: typeof key) =>
      h.app.server.inject({
        method: 'GET',
        url: '/v1/products',
        remoteAddress: attacker,
        headers: { authorization: `DPoP ${token}`, dpop: await dpopProof(proofKey, { htm: 'GET', htu, accessToken: token }) },
      });
    expect((await call(key)).statusCode).toBe(200);
    // Each refusal says what is left of the address's allowance.
    const refusals = [await get(h, attacker), await get(h, attacker, 'Bearer'), await call(await dpopKey())];
    expect(refusals.map((r) => r.statusCode)).toEqual([401, 401, 401]);
    expect(refusals.map((r) => r.headers['ratelimit-policy'])).toEqual(Array(3).fill('"unauthenticated";q=3;w=60'));
    expect(refusals.map((r) => String(r.headers.ratelimit).replace(/;t=\d+$/, ''))).toEqual(['"unauthenticated";r=2', '"unauthenticated";r=1', '"unauthenticated";r=0']);
    // Three refusals: every further request that needs a check is refused, a valid proof too.
    expect((await call(key)).statusCode).toBe(429);
  });
});

describe('pre-authentication limit for IPv6 callers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createAuthHarness('sqlite', { env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_UNAUTHENTICATED: '2' } });
  });
  afterAll(() => h.close());

  it('counts a whole /64 as one address, so rotating through a prefix gains nothing', async () => {
    expect((await get(h, '2001:db8:0:7::1', 'Bearer x')).statusCode).toBe(401);
    expect((await get(h, '2001:db8:0:7::ffff', 'Bearer x')).statusCode).toBe(401);
    expect((await get(h, '2001:db8:0:7:abcd::2', 'Bearer x')).statusCode).toBe(429);
    expect((await get(h, '2001:db8:0:8::1', 'Bearer x')).statusCode).toBe(401);
  });
});

describe('pre-authentication limit shared through Redis by two instances', () => {
  let redis: RedisServer;
  let one: Harness;
  let two: Harness;
  beforeAll(async () => {
    redis = await startRedis();
    const env = { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_UNAUTHENTICATED: '4', REDIS_URL: redis.url };
    one = await createAuthHarness('sqlite', { env });
    two = await createAuthHarness('sqlite', { env });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await redis?.stop();
  });

  it('refuses the address on the other instance once the shared count is used up', async () => {
    const statuses: number[] = [];
    for (const h of [one, two, one, two, one, two]) statuses.push((await get(h, attacker, 'Bearer not-a-token')).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect((await get(one, bystander, 'Bearer not-a-token')).statusCode).toBe(401);
  });
});
