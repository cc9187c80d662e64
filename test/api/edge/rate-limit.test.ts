import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startRedis } from '../../support/redis-server.js';
import type { RedisServer } from '../../support/redis-server.js';
import { signAssertion } from '../../support/keys.js';
import type { TestKeyPair } from '../../support/keys.js';

const limits = { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_TOKEN: '5', RATE_LIMIT_READS: '4', RATE_LIMIT_WRITES: '4', RATE_LIMIT_PUBLIC: '3', RATE_LIMIT_WINDOW_SECONDS: '60' };

describe('rate limits (in memory)', () => {
  /** The token request's form fields for `client`, for the token service itself (the token endpoint's own limit is spent in the first test). */
  const clientCredentials = async (client: { key: TestKeyPair; clientId: string; kid: string }) =>
    new Map([
      ['grant_type', 'client_credentials'],
      ['client_id', client.clientId],
      ['client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'],
      ['client_assertion', await signAssertion(client.key, client.clientId, h.config.tokenEndpoint, { kid: client.kid })],
    ]);

  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite', { env: limits });
  });
  afterAll(() => h.close());

  it('stops a burst of bad assertions from one IP at the token endpoint', async () => {
    const client = await h.client(null, ['products:list']);
    const statuses: number[] = [];
    let refused;
    for (let i = 0; i < 8; i++) {
      const forged = await signAssertion(client.key, client.clientId, 'https://wrong.example/token');
      const res = await h.app.server.inject({
        method: 'POST',
        url: '/v1/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: forged,
        }).toString(),
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
      else expect(res.headers['ratelimit-policy']).toBe('"token";q=5;w=60');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(refused?.headers['retry-after']).toMatch(/^\d+$/);
    // The token endpoint answers in RFC 6749 form, like all its errors.
    expect(refused?.json()).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
    expect(refused?.headers.ratelimit).toMatch(/^"token";r=0;t=\d+$/);
  });

  it('counts reads per client, not per address', async () => {
    const a = await h.client(null, ['products:list']);
    const b = await h.client(null, ['products:list']);
    // Tokens straight from the service: the token endpoint's own limit is spent above.
    const tokenFor = async (c: typeof a) => (await h.app.tokens.issue({ fields: await clientCredentials(c), dpopProof: undefined, sourceIp: '127.0.0.1' })).access_token;
    const ta = await tokenFor(a);
    const tb = await tokenFor(b);
    const run = async (token: string) => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++) out.push((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode);
      return out;
    };
    expect(await run(ta)).toEqual([200, 200, 200, 200, 429]);
    expect(await run(tb)).toEqual([200, 200, 200, 200, 429]);
    const ok = await h.request({ method: 'GET', url: '/v1/products', token: tb });
    expect(ok.headers['ratelimit-policy']).toBe('"reads";q=4;w=60');
  });

  it('counts a write whose body is refused (not JSON, wrong type, too large), and over the limit reads no body', async () => {
    const writer = await h.client(null, ['products:create']);
    const token = (await h.app.tokens.issue({ fields: await clientCredentials(writer), dpopProof: undefined, sourceIp: '127.0.0.1' })).access_token;
    const post = (payload: string, contentType = 'application/json') =>
      h.app.server.inject({ method: 'POST', url: '/v1/products/', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload });
    const refusals = [await post('{"name": '), await post('name=Loft', 'text/plain'), await post(`"${'x'.repeat(200 * 1024)}"`)];
    expect(refusals.map((r) => r.statusCode)).toEqual([400, 415, 413]);
    // Each refusal counted: 3, 2, 1 writes left.
    expect(refusals.map((r) => String(r.headers.ratelimit).replace(/;t=\d+$/, ''))).toEqual(['"writes";r=3', '"writes";r=2', '"writes";r=1']);
    expect((await post('{"name": ')).statusCode).toBe(400);
    // The fifth write is over the limit: refused before its body is parsed.
    const over = await post('{"name": ');
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('counts a group over all its routes, not per route', async () => {
    const reader = await h.client(null, ['products:list', 'bookings:list', 'orders:list', 'products:read']);
    const token = (await h.app.tokens.issue({ fields: await clientCredentials(reader), dpopProof: undefined, sourceIp: '127.0.0.1' })).access_token;
    const statuses: number[] = [];
    for (const url of ['/v1/products', '/v1/bookings/', '/v1/orders', '/v1/products/unknown-id', '/v1/bookings']) statuses.push((await h.request({ method: 'GET', url, token })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 404, 429]);
    // Public routes share theirs per address in the same way.
    const from = (url: string) => h.app.server.inject({ method: 'GET', url, remoteAddress: '10.9.8.7' });
    const publicStatuses = [];
    for (const url of ['/.well-known/jwks.json', '/.well-known/security.txt', '/.well-known/oauth-authorization-server/v1', '/.well-known/jwks.json'])
      publicStatuses.push((await from(url)).statusCode);
    expect(publicStatuses).toEqual([200, 200, 200, 429]);
  });
});

describe('rate limits shared through Redis by two instances', () => {
  let redis: RedisServer;
  let one: Harness;
  let two: Harness;
  beforeAll(async () => {
    redis = await startRedis();
    one = await createHarness('sqlite', { env: { ...limits, REDIS_URL: redis.url } });
    two = await createHarness('sqlite', { env: { ...limits, REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await redis?.stop();
  });

  it('refuses the request over the limit whichever instance receives it', async () => {
    const statuses: number[] = [];
    for (const h of [one, two, one, two]) statuses.push((await h.request({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("counts a group's routes together across instances", async () => {
    const statuses: number[] = [];
    for (const [h, url] of [
      [one, '/.well-known/security.txt'],
      [two, '/.well-known/jwks.json'],
      [one, '/.well-known/oauth-authorization-server'],
      [two, '/.well-known/security.txt'],
    ] as const)
      statuses.push((await h.app.server.inject({ method: 'GET', url, remoteAddress: '10.9.8.6' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('rate limits while Redis is away', () => {
  let redis: RedisServer;
  let h: Harness;
  beforeAll(async () => {
    redis = await startRedis();
    h = await createHarness('sqlite', { env: { ...limits, REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('lets requests through and claims no quota it did not count', async () => {
    const counted = await h.request({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(counted.headers.ratelimit).toMatch(/^"public";r=2;t=\d+$/);
    await redis.stop();
    const uncounted = await h.request({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(uncounted.statusCode).toBe(200);
    expect(uncounted.headers.ratelimit).toBeUndefined();
    expect(uncounted.headers['ratelimit-policy']).toBeUndefined();
  });
});
