import { CompactSign, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/core/principal.js';
import { TenantDirectory } from '../../../src/security/tenant-directory.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { TestOidcProvider } from '../../support/oidc-provider.js';
import { expectProblem } from '../../support/problem.js';

const publicUrl = 'http://api.test';
const callback = `${publicUrl}/v1/auth/oauth/local/callback`;
const appCallback = 'https://app.example/signed-in';
const accounts = { alice: { email: 'alice@example.test', emailVerified: true } };

/** The parts of a compact JWS: decoded header and payload bytes, and the signature text. */
function partsOf(jws: string) {
  const [header = '', payload = '', signature = ''] = jws.split('.');
  return { header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>, payload: Buffer.from(payload, 'base64url'), signature };
}

/** A fresh RS256 key: the private key and its public JWK under `kid`. */
async function rsaKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** The same claims, signed anew with `key` under the header `kid`. */
function resign(idToken: string, key: Awaited<ReturnType<typeof rsaKey>>['privateKey'], kid: string): Promise<string> {
  return new CompactSign(partsOf(idToken).payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
}

let provider: TestOidcProvider;
beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [callback], accounts, emailInIdToken: true });
});
afterAll(() => provider.close());
afterEach(() => {
  provider.tamperIdToken(null);
  provider.publishKeys([]);
  vi.restoreAllMocks();
});

describe.each(dialects)("OAuth login: the ID token's signature is verified against the provider's JWKS on %s", (dialect) => {
  let h: Harness;
  let tenant: string;
  let alice: string;

  beforeAll(async () => {
    const providers = JSON.stringify([{ id: 'local', issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret }]);
    h = await createHarness(dialect, { env: { OAUTH_PROVIDERS: providers, OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_REDIRECT_URIS: appCallback } });
    tenant = await h.tenant('Tenant A');
    const scope = await new TenantDirectory(h.database).resolve(tenant);
    if (!scope) throw new Error('no tenant');
    const { record } = await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email: 'alice@example.test', role: 'staff' });
    alice = String(record._id);
  });
  afterAll(() => h.close());

  /** Start, provider login and consent, and our callback: its answer. */
  async function signIn() {
    provider.login('alice');
    const started = await h.request({ method: 'GET', url: `/v1/auth/oauth/local/start?${new URLSearchParams({ tenant_id: tenant, redirect_uri: appCallback }).toString()}` });
    expect(started.statusCode, started.body).toBe(302);
    const returned = await provider.authorize(String(started.headers.location), callback);
    return h.request({ method: 'GET', url: returned.slice(publicUrl.length) });
  }
  /** A callback that signs the user in, traded for a token of Alice. */
  async function expectSignedIn() {
    const answer = await signIn();
    expect(answer.statusCode, answer.body).toBe(302);
    const code = new URL(String(answer.headers.location)).searchParams.get('code');
    const token = await h.request({ method: 'POST', url: '/v1/auth/oauth/token', body: { code } });
    expect(token.statusCode, token.body).toBe(200);
    const claims = decodeJwt(String(token.json().access_token));
    expect(claims.sub).toBe(alice);
  }
  /** A callback refused with 400 invalid_grant and no redirect; the private reason of its security event. */
  async function expectRefused(): Promise<string> {
    const answer = await signIn();
    expectProblem(answer, 400, 'invalid_grant');
    expect(answer.headers.location).toBeUndefined();
    const last = await h.database.db
      .selectFrom('audit_logs')
      .select(['new_values', 'created_at'])
      .where('category', '=', 'security')
      .where('action', '=', 'sign_in_failed')
      .orderBy('created_at', 'desc')
      .orderBy('_id', 'desc')
      .executeTakeFirstOrThrow();
    const details = (typeof last.new_values === 'string' ? JSON.parse(last.new_values) : last.new_values) as Record<string, unknown>;
    expect(details).toMatchObject({ method: 'oauth', stage: 'callback', provider: 'local' });
    return String(details.reason);
  }

  it("signs in with an ID token signed by the provider's published key", async () => {
    await expectSignedIn();
  });

  it('refuses an ID token whose signature is corrupted', async () => {
    provider.tamperIdToken((idToken) => {
      const [header, payload, signature = ''] = idToken.split('.');
      const bytes = Buffer.from(signature, 'base64url');
      bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0x5a;
      return `${header}.${payload}.${bytes.toString('base64url')}`;
    });
    expect(await expectRefused()).toMatch(/signature verification failed/);
  });

  it('refuses an ID token whose claims were changed after signing', async () => {
    provider.tamperIdToken((idToken) => {
      const [header, payload = '', signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, email: 'alice@example.test', sub: 'someone-else' })).toString('base64url');
      return `${header}.${forged}.${signature}`;
    });
    expect(await expectRefused()).toMatch(/signature verification failed/);
  });

  it('refuses an unsigned ID token (alg none)', async () => {
    provider.tamperIdToken((idToken) => `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${idToken.split('.')[1]}.`);
    expect(await expectRefused()).toMatch(/alg|unsigned|signature/i);
  });

  it('refuses an ID token signed by a key the provider does not publish, under an unknown kid or under the published one', async () => {
    const rogue = await rsaKey('rogue-key');
    provider.tamperIdToken((idToken) => resign(idToken, rogue.privateKey, 'rogue-key'));
    expect(await expectRefused()).toMatch(/no applicable keys found/);
    // The same outsider's key claiming the provider's own kid: the signature does not verify.
    provider.tamperIdToken((idToken) => resign(idToken, rogue.privateKey, String(partsOf(idToken).header.kid)));
    expect(await expectRefused()).toMatch(/signature verification failed/);
  });

  it('follows a key rotation: a newly published key is fetched and accepted (at most one refetch a minute for unknown keys)', async () => {
    await expectSignedIn();
    const rotated = await rsaKey('rotated-2');
    provider.publishKeys([rotated.publicJwk]);
    provider.tamperIdToken((idToken) => resign(idToken, rotated.privateKey, 'rotated-2'));
    // The JWKS was read less than a minute ago: an unknown kid does not make the service
    // fetch it again (a flood of forged kids cannot turn into a flood of JWKS requests).
    expect(await expectRefused()).toMatch(/no applicable keys found/);
    // A minute later (the clock moved, no waiting) the unknown kid makes it read the JWKS again: accepted.
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
    await expectSignedIn();
    // And the key the provider signed with before the rotation still counts while it is published.
    provider.tamperIdToken(null);
    await expectSignedIn();
  });
});
