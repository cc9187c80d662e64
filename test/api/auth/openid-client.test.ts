import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, importPKCS8, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signEs512Jws } from '../../../src/security/sign-es512.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import { autoEs512Choice, es512Signers } from '../../support/es512-signers.js';
import { freePort } from '../../support/free-port.js';
import type { TestClient } from '../../support/harness.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

/** A harness listening on a real port, with PUBLIC_URL set to that origin. */
async function listeningHarness(dialect: (typeof dialects)[number], env: Record<string, string> = {}): Promise<{ h: AuthHarness; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createAuthHarness(dialect, { env: { PUBLIC_URL: origin, ...env } });
  await h.app.server.listen({ port, host: '127.0.0.1' });
  return { h, origin };
}

/**
 * openid-client's configuration for a test client via RFC 8414 discovery. openid-client
 * signs assertions with `aud` = issuer by default; the contract requires the token endpoint
 * URL exactly, so the assertion is adjusted the way a deployment's client would be.
 */
async function discover(h: AuthHarness, origin: string, client: TestClient, options: { audience?: 'token_endpoint' | 'issuer' } = {}): Promise<oidc.Configuration> {
  const key = await importPKCS8(client.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), client.key.alg);
  const audience = options.audience ?? 'token_endpoint';
  const auth = oidc.PrivateKeyJwt(
    { key, kid: client.kid },
    {
      [oidc.modifyAssertion]: (_header, payload) => {
        if (audience === 'token_endpoint') payload.aud = h.config.tokenEndpoint;
      },
    },
  );
  return oidc.discovery(new URL(`${origin}/v1`), client.clientId, {}, auth, { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] });
}

describe.each(dialects)('openid-client v6 against the service on %s', (dialect) => {
  let h: AuthHarness;
  let origin: string;
  let client: TestClient;
  let config: oidc.Configuration;

  beforeAll(async () => {
    ({ h, origin } = await listeningHarness(dialect));
    client = await h.client(await h.tenant('Acme'), ['products:list', 'products:create']);
    config = await discover(h, origin, client);
  });
  afterAll(() => h.close());

  it('discovers the issuer through RFC 8414 path insertion', () => {
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(`${origin}/v1`);
    expect(metadata.token_endpoint).toBe(`${origin}/v1/auth/token`);
    expect(metadata.jwks_uri).toBe(`${origin}/.well-known/jwks.json`);
  });

  it('obtains a Bearer token with private_key_jwt (ES256) and calls the API with it', async () => {
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'products:list' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope).toBe('products:list');
    const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${origin}/v1/products`), 'GET');
    expect(res.status).toBe(200);
    // A list page (what is in it depends on the other cases here, which create products).
    expect(await res.json()).toMatchObject({ items: expect.any(Array), total: expect.any(Number), page: 1, per_page: 25 });
  });

  it('issues tokens (signed by what ES512_SIGNER=auto chose here: the system libcrypto where it is installed) that jose verifies against the published JWKS over HTTP', async () => {
    expect(h.keys.signer).toBe(autoEs512Choice.signer);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'products:list' });
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri as string));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      algorithms: ['ES512'],
      typ: 'at+jwt',
      issuer: `${origin}/v1`,
      audience: `${origin}/v1`,
      requiredClaims: ['sub', 'client_id', 'jti', 'iat', 'exp', 'scope', 'tenant_id', 'level'],
    });
    expect(protectedHeader).toEqual({ alg: 'ES512', kid: h.keys.current(Math.floor(Date.now() / 1000)).kid, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: client.clientId, client_id: client.clientId, scope: 'products:list', level: 'tenant' });
    // One flipped bit in the signature and jose refuses it.
    const [head, body, signature] = tokens.access_token.split('.') as [string, string, string];
    const flipped = Buffer.from(signature, 'base64url');
    flipped[10] = (flipped[10] as number) ^ 1;
    await expect(jwtVerify(`${head}.${body}.${flipped.toString('base64url')}`, jwks)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('obtains a DPoP-bound token and calls the API with proofs from the same handle', async () => {
    const keyPair = await oidc.randomDPoPKeyPair('ES256');
    const dpop = oidc.getDPoPHandle(config, keyPair);
    const tokens = await oidc.clientCredentialsGrant(config, {}, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(tokens.scope?.split(' ').sort()).toEqual(['products:create', 'products:list']);
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await dpop.calculateThumbprint() });

    const created = await oidc.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${origin}/v1/products/`),
      'POST',
      JSON.stringify(product),
      new Headers({ 'content-type': 'application/json' }),
      { DPoP: dpop },
    );
    expect(created.status).toBe(201);
    const listed = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${origin}/v1/products?per_page=5`), 'GET', undefined, undefined, { DPoP: dpop });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { total: number }).total).toBe(1);

    // The same token without its proof is refused, and openid-client surfaces the challenge.
    const bare = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${origin}/v1/products`), 'GET').catch((caught: unknown) => caught);
    expect(bare).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    const challenge = bare as oidc.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause).toMatchObject([{ scheme: 'dpop', parameters: { error: 'invalid_token', algs: 'ES256 ES384 ES512 RS256 EdDSA' } }]);
  });

  it('reports the refusal of an assertion whose aud is the issuer as invalid_client', async () => {
    const issuerAudience = await discover(h, origin, client, { audience: 'issuer' });
    const error = await oidc.clientCredentialsGrant(issuerAudience, { scope: 'products:list' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(oidc.ResponseBodyError);
    expect(error).toMatchObject({ error: 'invalid_client', status: 401 });
  });
});

describe.each(dialects)('openid-client v6 against the service signing with the node:crypto fallback (ES512_SIGNER=node) on %s', (dialect) => {
  let h: AuthHarness;
  let origin: string;
  let config: oidc.Configuration;

  beforeAll(async () => {
    ({ h, origin } = await listeningHarness(dialect, { ES512_SIGNER: 'node' }));
    config = await discover(h, origin, await h.client(await h.tenant('Acme'), ['products:list']));
  });
  afterAll(() => h.close());

  it('issues tokens that jose verifies against the JWKS and the API accepts; /metrics and the posture name the signer', async () => {
    expect(h.keys.signer.name).toBe('node');
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'products:list' });
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri as string));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { algorithms: ['ES512'], typ: 'at+jwt', issuer: `${origin}/v1`, audience: `${origin}/v1` });
    expect(payload.scope).toBe('products:list');
    const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${origin}/v1/products`), 'GET');
    expect(res.status).toBe(200);
    const metrics = (await h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
    expect(metrics).toContain('access_token_signer_info{signer="node"} 1');
    const posture = await h.app.server.inject({ method: 'GET', url: '/v1/security/json', headers: { authorization: `Bearer ${await h.bearer(null, ['security:read'])}` } });
    expect(posture.json()).toMatchObject({ access_tokens: { signing_alg: 'ES512', signer: "node:crypto (Node's bundled OpenSSL)" } });
  });

  it.each(es512Signers)('tokens of the signers are interchangeable: one signed by $name with the same key verifies here too', async (signer) => {
    const now = Math.floor(Date.now() / 1000);
    const { kid, signingKey } = h.keys.current(now);
    const claims = { ...decodeJwt((await oidc.clientCredentialsGrant(config, { scope: 'products:list' })).access_token), jti: randomUUID() };
    const token = await signEs512Jws(claims, signingKey, { kid, typ: 'at+jwt' }, signer);
    const res = await oidc.fetchProtectedResource(config, token, new URL(`${origin}/v1/products`), 'GET');
    expect(res.status).toBe(200);
  });
});

describe.each(dialects)('openid-client v6 with server DPoP nonces on %s', (dialect) => {
  let h: AuthHarness;
  let origin: string;

  beforeAll(async () => {
    ({ h, origin } = await listeningHarness(dialect, { DPOP_NONCE: 'true' }));
  });
  afterAll(() => h.close());

  it('retries with the server nonce at the token endpoint and at the API', async () => {
    const client = await h.client(await h.tenant('Acme'), ['products:list']);
    const config = await discover(h, origin, client);
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair());
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'products:list' }, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const res = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${origin}/v1/products`), 'GET', undefined, undefined, { DPoP: dpop });
    expect(res.status).toBe(200);
  });
});
