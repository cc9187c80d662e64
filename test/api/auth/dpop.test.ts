import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAuthProblem, expectOAuthError } from '../../support/assertions.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import { dpopKey, dpopProof } from '../../support/dpop.js';
import type { DpopKey, ProofOptions } from '../../support/dpop.js';
import type { TestClient } from '../../support/harness.js';

const products = 'http://api.test/v1/products';
const invalidProof = /^DPoP realm="booking-api", error="invalid_dpop_proof", algs="ES256 ES384 ES512 RS256 EdDSA"$/;

describe.each(dialects)('DPoP on %s', (dialect) => {
  let h: AuthHarness;
  let client: TestClient;
  let key: DpopKey;
  let token: string;

  /** A call to the products list with `Authorization: <scheme> <token>` and an optional proof. */
  const call = (options: { scheme?: string; accessToken?: string; proof?: string; url?: string }) =>
    h.app.server.inject({
      method: 'GET',
      url: options.url ?? '/v1/products',
      headers: { authorization: `${options.scheme ?? 'DPoP'} ${options.accessToken ?? token}`, ...(options.proof ? { dpop: options.proof } : {}) },
    });
  const proof = (overrides: Partial<ProofOptions> = {}, signer: DpopKey = key) => dpopProof(signer, { htm: 'GET', htu: products, accessToken: token, ...overrides });

  beforeAll(async () => {
    h = await createAuthHarness(dialect);
    client = await h.client(await h.tenant('Acme'), ['products:list']);
    key = await dpopKey();
    const res = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint }) } });
    expect(res.statusCode).toBe(200);
    token = res.json().access_token;
  });
  afterAll(() => h.close());

  describe('at the token endpoint', () => {
    it('binds the token to the proof key: token_type DPoP and cnf.jkt', async () => {
      const other = await dpopKey('ES384');
      const res = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(other, { htm: 'POST', htu: h.config.tokenEndpoint }) } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json().token_type).toBe('DPoP');
      expect(decodeJwt(res.json().access_token).cnf).toEqual({ jkt: other.jkt });
      expect(decodeJwt(token).cnf).toEqual({ jkt: key.jkt });
    });

    const bad: ReadonlyArray<readonly [string, (endpoint: string) => Promise<string>]> = [
      ['garbage', async () => 'not-a-jwt'],
      ['a wrong htu', async () => dpopProof(key, { htm: 'POST', htu: 'http://api.test/v1/products' })],
      ['a wrong htm', async (endpoint) => dpopProof(key, { htm: 'GET', htu: endpoint })],
      ['a stale iat', async (endpoint) => dpopProof(key, { htm: 'POST', htu: endpoint, iat: Math.floor(Date.now() / 1000) - 600 })],
      ['typ JWT', async (endpoint) => dpopProof(key, { htm: 'POST', htu: endpoint, header: { typ: 'JWT' } })],
      ['a private key in the header', async (endpoint) => dpopProof(key, { htm: 'POST', htu: endpoint, header: { jwk: { ...key.jwk, d: 'AAAA' } } })],
      ['a header jwk that did not sign it', async (endpoint) => dpopProof(key, { htm: 'POST', htu: endpoint, header: { jwk: (await dpopKey()).jwk } })],
      ['no jti', async (endpoint) => dpopProof(key, { htm: 'POST', htu: endpoint, claims: { jti: undefined } })],
      ['two proofs', async (endpoint) => `${await dpopProof(key, { htm: 'POST', htu: endpoint })}, ${await dpopProof(key, { htm: 'POST', htu: endpoint })}`],
    ];

    it.each(bad)('refuses a proof with %s with 400 invalid_dpop_proof', async (_name, build) => {
      const res = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await build(h.config.tokenEndpoint) } });
      expectOAuthError(res, 400, 'invalid_dpop_proof');
    });

    it('refuses a replayed proof with 400 invalid_dpop_proof', async () => {
      const once = await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint });
      expect((await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: once } })).statusCode).toBe(200);
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: once } }), 400, 'invalid_dpop_proof');
    });

    it('accepts any jti text, a NUL byte included, without a server error', async () => {
      const odd = await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint, jti: 'a\u0000b' });
      expect((await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: odd } })).statusCode).toBe(200);
    });
  });

  describe('at a protected route', () => {
    it('accepts the bound token with a valid proof', async () => {
      expect((await call({ proof: await proof() })).statusCode).toBe(200);
    });

    it('refuses the bound token sent as Bearer with a DPoP invalid_token challenge', async () => {
      expectAuthProblem(await call({ scheme: 'Bearer', proof: await proof() }), 401, 'invalid_token', /^DPoP realm="booking-api", error="invalid_token", algs="ES256 ES384 ES512 RS256 EdDSA"$/);
    });

    it('refuses a request without a proof', async () => {
      expectAuthProblem(await call({}), 401, 'invalid_token', /^DPoP .*error="invalid_dpop_proof".*algs="/);
    });

    it('refuses a valid proof from a key the token is not bound to with error="invalid_token"', async () => {
      expectAuthProblem(await call({ proof: await proof({}, await dpopKey()) }), 401, 'invalid_token', /^DPoP realm="booking-api", error="invalid_token", algs="/);
    });

    it.each([
      ['no ath', { accessToken: undefined }],
      ['a wrong ath', { accessToken: `${'x'}${'y'}` }],
      ['a wrong htm', { htm: 'POST' }],
      ['a wrong htu', { htu: 'http://api.test/v1/bookings' }],
      ['another origin in htu', { htu: 'https://api.test/v1/products' }],
      ['a stale iat', { iat: Math.floor(Date.now() / 1000) - 600 }],
    ] as const)('refuses a proof with %s with 401 invalid_dpop_proof', async (_name, overrides) => {
      expectAuthProblem(await call({ proof: await proof(overrides) }), 401, 'invalid_token', invalidProof);
    });

    it('refuses a replayed proof', async () => {
      const once = await proof();
      expect((await call({ proof: once })).statusCode).toBe(200);
      expectAuthProblem(await call({ proof: once }), 401, 'invalid_token', invalidProof);
    });

    it('ignores the query string when comparing htu', async () => {
      expect((await call({ url: '/v1/products?per_page=5&sort=-created_at', proof: await proof() })).statusCode).toBe(200);
    });

    it('refuses an unbound token sent with the DPoP scheme', async () => {
      const bearer = await h.token(client);
      expectAuthProblem(await call({ accessToken: bearer, proof: await proof({ accessToken: bearer }) }), 401, 'invalid_token', /^DPoP .*error="invalid_token"/);
    });
  });
});

describe.each(dialects)('DPoP nonces (DPOP_NONCE=true) on %s', (dialect) => {
  let h: AuthHarness;
  let client: TestClient;
  let key: DpopKey;

  beforeAll(async () => {
    h = await createAuthHarness(dialect, { env: { DPOP_NONCE: 'true' } });
    client = await h.client(await h.tenant('Acme'), ['products:list']);
    key = await dpopKey();
  });
  afterAll(() => h.close());

  it('asks for a nonce at the token endpoint and at the API, and accepts the retry', async () => {
    const first = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint }) } });
    expectOAuthError(first, 400, 'use_dpop_nonce');
    const nonce = String(first.headers['dpop-nonce']);
    expect(nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    const retry = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint, nonce }) } });
    expect(retry.statusCode).toBe(200);
    const token = retry.json().access_token as string;

    const headers = async (withNonce?: string) => ({
      authorization: `DPoP ${token}`,
      dpop: await dpopProof(key, { htm: 'GET', htu: products, accessToken: token, ...(withNonce ? { nonce: withNonce } : {}) }),
    });
    const refused = await h.app.server.inject({ method: 'GET', url: '/v1/products', headers: await headers() });
    expectAuthProblem(refused, 401, 'invalid_token', /^DPoP realm="booking-api", error="use_dpop_nonce", algs="/);
    expect(refused.headers['dpop-nonce']).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    const ok = await h.app.server.inject({ method: 'GET', url: '/v1/products', headers: await headers(String(refused.headers['dpop-nonce'])) });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses a forged nonce with use_dpop_nonce and still issues Bearer tokens without a proof', async () => {
    const forged = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint, nonce: `0.${'A'.repeat(43)}` }) } });
    expectOAuthError(forged, 400, 'use_dpop_nonce');
    expect(forged.headers['dpop-nonce']).toBeDefined();
    expect((await h.tokenRequest(await h.assertionForm(client))).statusCode).toBe(200);
  });
});
