import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { App } from '../../../src/app.js';
import type { Config } from '../../../src/config/config.js';
import { getResource } from '../../../src/registry/index.js';
import { roleCapabilities } from '../../../src/actions/roles.js';
import { issueAccessToken } from '../../../src/security/access-token.js';
import type { AccessTokenGrant } from '../../../src/security/access-token.js';
import { DpopNonces } from '../../../src/security/dpop-nonces.js';
import { asSystem } from '../../../src/core/principal.js';
import { signInClientId } from '../../../src/sign-in/user-tokens.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import { dpopKey, dpopProof } from '../../support/dpop.js';
import type { DpopKey, ProofOptions } from '../../support/dpop.js';
import type { TestClient } from '../../support/harness.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { createUserIn } from '../../support/user-sign-in.js';

/**
 * Every refusal the security pipeline and the token endpoint can give, each made twice on
 * an instance of its own: first with cold caches (a fresh app over the shared database,
 * and a fresh client or DPoP key, so neither the instance's directories and verified-token
 * cache nor the process's imported-key caches know the request), then again after a
 * successful request warmed them. Both answers must be the contract's: the same status,
 * problem `code` or OAuth `error`, `WWW-Authenticate` challenge and `DPoP-Nonce`.
 */

const algs = 'algs="ES256 ES384 ES512 RS256 EdDSA"';
const challenges = {
  none: undefined,
  both: `Bearer realm="booking-api", DPoP realm="booking-api", ${algs}`,
  bearer: 'Bearer realm="booking-api", error="invalid_token"',
  scope: (capability: string) => `Bearer realm="booking-api", error="insufficient_scope", scope="${capability}"`,
  stepUp: 'Bearer realm="booking-api", error="insufficient_user_authentication", acr_values="urn:booking:totp"',
  dpop: (error: string) => `DPoP realm="booking-api", error="${error}", ${algs}`,
} as const;

/** What a refusal says on the wire. */
interface Outcome {
  readonly status: number;
  /** The problem's `code`, or the token endpoint's `error`. */
  readonly code: string;
  readonly challenge: string | undefined;
  /** Whether a `DPoP-Nonce` came with it. */
  readonly nonce: boolean;
}

function outcome(response: LightMyRequestResponse): Outcome {
  const type = String(response.headers['content-type']);
  const body = response.json() as { code?: string; error?: string };
  const code = type.startsWith('application/problem+json') ? body.code : type.startsWith('application/json') ? body.error : undefined;
  const challenge = response.headers['www-authenticate'];
  return { status: response.statusCode, code: String(code), challenge: challenge === undefined ? undefined : String(challenge), nonce: response.headers['dpop-nonce'] !== undefined };
}

const problem = (status: number, code: string, challenge?: string): Outcome => ({ status, code, challenge, nonce: false });
const oauth = (status: number, error: string, nonce = false): Outcome => ({ status, code: error, challenge: undefined, nonce });

type Send = (app: App) => Promise<LightMyRequestResponse>;

/** One refusal: the request refused, and a successful request that warms the same caches. */
interface Arranged {
  readonly refused: Send;
  readonly warmUp: Send;
}

interface Case {
  readonly name: string;
  readonly expected: Outcome;
  /** The cold instance requires DPoP nonces. */
  readonly nonces?: boolean;
  readonly arrange: (world: World) => Promise<Arranged>;
}

const nonceSecret = 'refusals-nonce-secret-of-32-bytes-at-least';
const epoch = () => Math.floor(Date.now() / 1000);
const productsUrl = 'http://api.test/v1/products';

/** The issuing instance and what the cases build with it. */
interface World {
  readonly h: AuthHarness;
  readonly acme: string;
  /** A new client, in Acme unless `tenant` says otherwise (`null`: system level). */
  client(capabilities?: readonly string[], options?: { tenant?: string | null; ipAllowlist?: string[] }): Promise<TestClient>;
  /** A Bearer token from the issuing instance's token endpoint. */
  bearer(client: TestClient, remoteAddress?: string): Promise<string>;
  /** A fresh DPoP key and a token bound to it. */
  bound(client: TestClient): Promise<{ key: DpopKey; token: string }>;
  /** A token minted with the service's keys but never seen by an instance, with grant overrides. */
  minted(client: TestClient, overrides?: Partial<AccessTokenGrant>, issuedAt?: number): Promise<string>;
  /** An end user of Acme and a token of theirs (`amr` as given), minted like sign-in does. */
  user(role: 'guest' | 'admin', amr: readonly string[], status?: 'active' | 'disabled'): Promise<string>;
  disable(client: TestClient): Promise<void>;
  /** Replaces the client's capabilities (tokens issued before keep their scope claim). */
  grant(client: TestClient, capabilities: readonly string[]): Promise<void>;
  form(client: TestClient, options?: { scope?: string; assertion?: string }): Promise<Record<string, string>>;
}

const get =
  (token: string | undefined, headers: Record<string, string> = {}, url = '/v1/products'): Send =>
  (app) =>
    app.server.inject({ method: 'GET', url, headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers } });
const dpopGet =
  (token: string, proof: string | undefined, scheme = 'DPoP'): Send =>
  (app) =>
    app.server.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `${scheme} ${token}`, ...(proof === undefined ? {} : { dpop: proof }) } });
const tokenRequest =
  (form: string | Record<string, string>, headers: Record<string, string> = {}, remoteAddress?: string): Send =>
  (app) =>
    app.server.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
      ...(remoteAddress ? { remoteAddress } : {}),
    });

/** A protected-route refusal of a DPoP-bound token whose warm-up is the same call with a good proof. */
function boundCase(name: string, error: string, proof: (key: DpopKey, token: string, w: World) => Promise<string | undefined>, scheme = 'DPoP'): Case {
  return {
    name,
    expected: problem(401, 'invalid_token', challenges.dpop(error)),
    async arrange(w) {
      const { key, token } = await w.bound(await w.client());
      const good = (): Promise<string> => dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token });
      return { refused: async (app) => dpopGet(token, await proof(key, token, w), scheme)(app), warmUp: async (app) => dpopGet(token, await good())(app) };
    },
  };
}

/** A token-endpoint refusal of a fresh client whose warm-up is a good token request of the same client. */
function tokenCase(name: string, expected: Outcome, refused: (client: TestClient, w: World) => Promise<Send>): Case {
  return {
    name,
    expected,
    async arrange(w) {
      const client = await w.client();
      return { refused: async (app) => (await refused(client, w))(app), warmUp: async (app) => tokenRequest(await w.form(client))(app) };
    },
  };
}

/** A token-endpoint DPoP refusal whose warm-up is a good token request with a proof of the same key. */
function tokenProofCase(name: string, proof: (key: DpopKey, w: World) => Promise<string>): Case {
  return {
    name,
    expected: oauth(400, 'invalid_dpop_proof'),
    async arrange(w) {
      const client = await w.client();
      const key = await dpopKey();
      const good = () => dpopProof(key, { htm: 'POST', htu: w.h.config.tokenEndpoint });
      return { refused: async (app) => tokenRequest(await w.form(client), { dpop: await proof(key, w) })(app), warmUp: async (app) => tokenRequest(await w.form(client), { dpop: await good() })(app) };
    },
  };
}

/** A token whose payload was changed after signing. */
function tampered(token: string): string {
  const [header, , signature] = token.split('.') as [string, string, string];
  const claims = { ...decodeJwt(token), scope: 'products:list products:create' };
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

const cases: readonly Case[] = [
  // Authentication at a protected route.
  { name: 'no token', expected: problem(401, 'unauthenticated', challenges.both), arrange: async (w) => ({ refused: get(undefined), warmUp: get(await w.bearer(await w.client())) }) },
  {
    name: 'a Basic Authorization header',
    expected: problem(401, 'unauthenticated', challenges.both),
    arrange: async (w) => ({ refused: get(undefined, { authorization: 'Basic dXNlcjpwYXNz' }), warmUp: get(await w.bearer(await w.client())) }),
  },
  { name: 'a malformed token', expected: problem(401, 'invalid_token', challenges.bearer), arrange: async (w) => ({ refused: get('a.b.c'), warmUp: get(await w.bearer(await w.client())) }) },
  {
    name: 'the DPoP scheme without a token',
    expected: problem(401, 'invalid_token', challenges.dpop('invalid_token')),
    arrange: async (w) => ({ refused: get(undefined, { authorization: 'DPoP' }), warmUp: get(await w.bearer(await w.client())) }),
  },
  {
    name: 'a tampered token',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const token = await w.bearer(await w.client());
      return { refused: get(tampered(token)), warmUp: get(token) };
    },
  },
  {
    name: 'an expired token',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const client = await w.client();
      return { refused: get(await w.minted(client, {}, epoch() - 1000)), warmUp: get(await w.minted(client)) };
    },
  },
  {
    name: 'a token for another audience',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const client = await w.client();
      return { refused: get(await w.minted(client, { audience: 'http://elsewhere.test/v1' })), warmUp: get(await w.minted(client)) };
    },
  },
  {
    name: 'a token of another issuer',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const client = await w.client();
      return { refused: get(await w.minted(client, { issuer: 'http://elsewhere.test/v1' })), warmUp: get(await w.minted(client)) };
    },
  },
  // The client behind a token.
  {
    name: 'a disabled client',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const disabled = await w.client();
      const token = await w.bearer(disabled);
      await w.disable(disabled);
      return { refused: get(token), warmUp: get(await w.bearer(await w.client())) };
    },
  },
  {
    name: 'a client token at a route for signed-in users',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => {
      const token = await w.bearer(await w.client());
      return { refused: (app) => app.server.inject({ method: 'POST', url: '/v1/auth/totp/enroll', headers: { authorization: `Bearer ${token}` } }), warmUp: get(token) };
    },
  },
  {
    name: 'a client outside its IP allowlist',
    expected: problem(403, 'ip_not_allowed'),
    arrange: async (w) => {
      const token = await w.bearer(await w.client(['products:list'], { ipAllowlist: ['10.0.0.0/8'] }), '10.1.2.3');
      return { refused: get(token), warmUp: async (app) => app.server.inject({ method: 'GET', url: '/v1/products', remoteAddress: '10.1.2.3', headers: { authorization: `Bearer ${token}` } }) };
    },
  },
  {
    name: 'a missing capability',
    expected: problem(403, 'insufficient_scope', challenges.scope('products:create')),
    arrange: async (w) => {
      const token = await w.bearer(await w.client());
      return {
        refused: (app) => app.server.inject({ method: 'POST', url: '/v1/products', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: '{}' }),
        warmUp: get(token),
      };
    },
  },
  {
    name: 'a capability withdrawn from the client after its token was issued',
    expected: problem(403, 'insufficient_scope', challenges.scope('products:list')),
    arrange: async (w) => {
      const client = await w.client(['products:list', 'products:read']);
      const token = await w.bearer(client);
      await w.grant(client, ['products:read']);
      return { refused: get(token), warmUp: get(await w.bearer(await w.client())) };
    },
  },
  // Tenant scope.
  {
    name: 'X-Tenant-Id from a tenant-level client',
    expected: problem(403, 'tenant_forbidden'),
    arrange: async (w) => {
      const token = await w.bearer(await w.client());
      return { refused: get(token, { 'x-tenant-id': w.acme }), warmUp: get(token) };
    },
  },
  {
    name: 'X-Tenant-Id naming no tenant node',
    expected: problem(400, 'validation_failed'),
    arrange: async (w) => {
      const token = await w.bearer(await w.client(['products:list'], { tenant: null }));
      return { refused: get(token, { 'x-tenant-id': 'no-such-node' }), warmUp: get(token, { 'x-tenant-id': w.acme }) };
    },
  },
  // End users.
  {
    name: 'a disabled user',
    expected: problem(401, 'invalid_token', challenges.bearer),
    arrange: async (w) => ({ refused: get(await w.user('admin', ['otp'], 'disabled')), warmUp: get(await w.user('admin', ['otp'])) }),
  },
  {
    name: "a capability outside the user's role",
    expected: problem(403, 'insufficient_scope', challenges.scope('api-clients:list')),
    arrange: async (w) => {
      const token = await w.user('guest', ['otp']);
      return { refused: get(token, {}, '/v1/api-clients'), warmUp: get(token) };
    },
  },
  {
    name: 'an administrative action without step-up',
    expected: problem(401, 'mfa_required', challenges.stepUp),
    arrange: async (w) => {
      const token = await w.user('admin', ['otp']);
      const create = { name: 'x', capabilities: ['products:list'], public_key: clientKeyPair().publicPem };
      return {
        refused: (app) => app.server.inject({ method: 'POST', url: '/v1/api-clients', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: create }),
        warmUp: get(token, {}, '/v1/api-clients'),
      };
    },
  },
  {
    name: 'X-Tenant-Id from a user',
    expected: problem(403, 'tenant_forbidden'),
    arrange: async (w) => {
      const token = await w.user('admin', ['otp']);
      return { refused: get(token, { 'x-tenant-id': w.acme }), warmUp: get(token) };
    },
  },
  // DPoP at a protected route.
  boundCase('a DPoP-bound token sent as Bearer', 'invalid_token', (key, token) => dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token }), 'Bearer'),
  boundCase('no DPoP proof', 'invalid_dpop_proof', async () => undefined),
  boundCase('a DPoP proof that is not a JWT', 'invalid_dpop_proof', async () => 'not-a-jwt'),
  boundCase('a DPoP proof for another URL', 'invalid_dpop_proof', (key, token) => dpopProof(key, { htm: 'GET', htu: 'http://api.test/v1/bookings', accessToken: token })),
  boundCase('a DPoP proof for another method', 'invalid_dpop_proof', (key, token) => dpopProof(key, { htm: 'POST', htu: productsUrl, accessToken: token })),
  boundCase('a DPoP proof for another token (ath)', 'invalid_dpop_proof', (key) => dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: 'another-token' })),
  boundCase('a stale DPoP proof', 'invalid_dpop_proof', (key, token) => dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token, iat: epoch() - 600 })),
  boundCase('a DPoP proof by another key', 'invalid_token', async (_key, token) => dpopProof(await dpopKey(), { htm: 'GET', htu: productsUrl, accessToken: token })),
  boundCase('a replayed DPoP proof', 'invalid_dpop_proof', async (key, token, w) => {
    const proof = await dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token });
    expect((await dpopGet(token, proof)(w.h.app)).statusCode).toBe(200);
    return proof;
  }),
  {
    name: 'an unbound token sent with the DPoP scheme',
    expected: problem(401, 'invalid_token', challenges.dpop('invalid_token')),
    arrange: async (w) => {
      const token = await w.bearer(await w.client());
      const key = await dpopKey();
      return { refused: async (app) => dpopGet(token, await dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token }))(app), warmUp: get(token) };
    },
  },
  {
    name: 'a DPoP proof without the required nonce',
    nonces: true,
    expected: { ...problem(401, 'invalid_token', challenges.dpop('use_dpop_nonce')), nonce: true },
    arrange: async (w) => {
      const { key, token } = await w.bound(await w.client());
      const proof = (nonce?: string) => dpopProof(key, { htm: 'GET', htu: productsUrl, accessToken: token, ...(nonce ? { nonce } : {}) });
      const nonces = new DpopNonces({ secret: nonceSecret });
      return { refused: async (app) => dpopGet(token, await proof())(app), warmUp: async (app) => dpopGet(token, await proof(nonces.issue(epoch())))(app) };
    },
  },
  // The token endpoint.
  tokenCase('a token request that is not a form', oauth(400, 'invalid_request'), async (c, w) => tokenRequest(JSON.stringify(await w.form(c)), { 'content-type': 'application/json' })),
  tokenCase('a token request without client_assertion', oauth(400, 'invalid_request'), async (c, w) => {
    const { client_assertion: _omitted, ...form } = await w.form(c);
    return tokenRequest(form);
  }),
  tokenCase('a token request with a repeated field', oauth(400, 'invalid_request'), async (c, w) => tokenRequest(`${new URLSearchParams(await w.form(c)).toString()}&grant_type=client_credentials`)),
  tokenCase('a token request with an Authorization header', oauth(400, 'invalid_request'), async (c, w) => tokenRequest(await w.form(c), { authorization: 'Basic dXNlcjpwYXNz' })),
  tokenCase('an unsupported grant type', oauth(400, 'unsupported_grant_type'), async (c, w) => tokenRequest({ ...(await w.form(c)), grant_type: 'password' })),
  tokenCase('an unsupported client_assertion_type', oauth(401, 'invalid_client'), async (c, w) =>
    tokenRequest({ ...(await w.form(c)), client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }),
  ),
  tokenCase('an unknown client', oauth(401, 'invalid_client'), async (c, w) => tokenRequest({ ...(await w.form(c)), client_id: 'no-such-client' })),
  tokenCase('an assertion signed by another key', oauth(401, 'invalid_client'), async (c, w) =>
    tokenRequest(await w.form(c, { assertion: await signAssertion(clientKeyPair(), c.clientId, w.h.config.tokenEndpoint, { kid: c.kid }) })),
  ),
  tokenCase('an expired assertion', oauth(401, 'invalid_client'), async (c, w) =>
    tokenRequest(await w.form(c, { assertion: await signAssertion(c.key, c.clientId, w.h.config.tokenEndpoint, { kid: c.kid, now: epoch() - 600 }) })),
  ),
  tokenCase('an assertion for another audience', oauth(401, 'invalid_client'), async (c, w) =>
    tokenRequest(await w.form(c, { assertion: await signAssertion(c.key, c.clientId, w.h.config.apiBase, { kid: c.kid }) })),
  ),
  tokenCase('a replayed assertion', oauth(401, 'invalid_client'), async (c, w) => {
    const form = await w.form(c);
    expect((await tokenRequest(form)(w.h.app)).statusCode).toBe(200);
    return tokenRequest(form);
  }),
  tokenCase('an unknown scope', oauth(400, 'invalid_scope'), async (c, w) => tokenRequest(await w.form(c, { scope: 'products:fly' }))),
  tokenCase('a scope the client does not hold', oauth(400, 'invalid_scope'), async (c, w) => tokenRequest(await w.form(c, { scope: 'products:create' }))),
  {
    name: 'a token request of a disabled client',
    expected: oauth(401, 'invalid_client'),
    arrange: async (w) => {
      const disabled = await w.client();
      await w.disable(disabled);
      const sibling = await w.client();
      return { refused: async (app) => tokenRequest(await w.form(disabled))(app), warmUp: async (app) => tokenRequest(await w.form(sibling))(app) };
    },
  },
  {
    name: 'a token request from outside the IP allowlist',
    expected: oauth(401, 'invalid_client'),
    arrange: async (w) => {
      const fenced = await w.client(['products:list'], { ipAllowlist: ['10.0.0.0/8'] });
      return { refused: async (app) => tokenRequest(await w.form(fenced))(app), warmUp: async (app) => tokenRequest(await w.form(fenced), {}, '10.1.2.3')(app) };
    },
  },
  tokenProofCase('a token-request DPoP proof that is not a JWT', async () => 'not-a-jwt'),
  tokenProofCase('a token-request DPoP proof for another URL', (key) => dpopProof(key, { htm: 'POST', htu: productsUrl })),
  tokenProofCase('a token-request DPoP proof for another method', (key, w) => dpopProof(key, { htm: 'GET', htu: w.h.config.tokenEndpoint })),
  tokenProofCase('a stale token-request DPoP proof', (key, w) => dpopProof(key, { htm: 'POST', htu: w.h.config.tokenEndpoint, iat: epoch() - 600 })),
  tokenProofCase('two token-request DPoP proofs', async (key, w) => {
    const one = (options: ProofOptions) => dpopProof(key, options);
    const options = { htm: 'POST', htu: w.h.config.tokenEndpoint };
    return `${await one(options)}, ${await one(options)}`;
  }),
  tokenProofCase('a replayed token-request DPoP proof', async (key, w) => {
    const proof = await dpopProof(key, { htm: 'POST', htu: w.h.config.tokenEndpoint });
    const client = await w.client();
    expect((await tokenRequest(await w.form(client), { dpop: proof })(w.h.app)).statusCode).toBe(200);
    return proof;
  }),
  {
    name: 'a token-request DPoP proof without the required nonce',
    nonces: true,
    expected: oauth(400, 'use_dpop_nonce', true),
    arrange: async (w) => {
      const client = await w.client();
      const key = await dpopKey();
      const nonces = new DpopNonces({ secret: nonceSecret });
      const proof = (nonce?: string) => dpopProof(key, { htm: 'POST', htu: w.h.config.tokenEndpoint, ...(nonce ? { nonce } : {}) });
      return {
        refused: async (app) => tokenRequest(await w.form(client), { dpop: await proof() })(app),
        warmUp: async (app) => tokenRequest(await w.form(client), { dpop: await proof(nonces.issue(epoch())) })(app),
      };
    },
  },
];

describe.each(dialects)('every refusal, on cold and on warm caches, on %s', (dialect) => {
  let h: AuthHarness;
  let world: World;

  beforeAll(async () => {
    h = await createAuthHarness(dialect);
    const acme = await h.tenant('Acme');
    const system = { principal: asSystem(), clientIp: null, requestId: null };
    const form: World['form'] = (client, options = {}) => h.assertionForm(client, options);
    world = {
      h,
      acme,
      client: (capabilities = ['products:list'], options = {}) =>
        h.client(options.tenant === undefined ? acme : options.tenant, capabilities, options.ipAllowlist ? { ipAllowlist: options.ipAllowlist } : {}),
      async bearer(client, remoteAddress) {
        const response = await h.tokenRequest(await form(client), remoteAddress ? { remoteAddress } : {});
        expect(response.statusCode).toBe(200);
        return String(response.json().access_token);
      },
      async bound(client) {
        const key = await dpopKey();
        const response = await h.tokenRequest(await form(client), { headers: { dpop: await dpopProof(key, { htm: 'POST', htu: h.config.tokenEndpoint }) } });
        expect(response.statusCode).toBe(200);
        return { key, token: String(response.json().access_token) };
      },
      async minted(client, overrides = {}, issuedAt = epoch()) {
        const grant: AccessTokenGrant = {
          issuer: h.config.apiBase,
          audience: h.config.apiBase,
          subject: client.clientId,
          clientId: client.clientId,
          scope: 'products:list',
          tenantId: client.tenantId,
          level: client.tenantId === null ? 'system' : 'tenant',
          ...overrides,
        };
        return (await issueAccessToken(h.keys, grant, issuedAt, 900)).token;
      },
      async user(role, amr, status = 'active') {
        const userId = await createUserIn(h, acme, 'tenant', { email: `${role}-${Math.random().toString(36).slice(2)}@refusals.test`, role, status });
        const grant: AccessTokenGrant = {
          issuer: h.config.apiBase,
          audience: h.config.apiBase,
          subject: userId,
          clientId: signInClientId,
          scope: roleCapabilities[role].join(' '),
          tenantId: acme,
          level: 'tenant',
          user: { amr },
        };
        return (await issueAccessToken(h.keys, grant, epoch(), 900)).token;
      },
      async disable(client) {
        const clients = getResource('api-clients');
        const { etag } = await h.app.resources.read(system, clients, client.clientId);
        await h.app.resources.update(system, clients, client.clientId, etag, { disabled: true });
      },
      async grant(client, capabilities) {
        const clients = getResource('api-clients');
        const { etag } = await h.app.resources.read(system, clients, client.clientId);
        await h.app.resources.update(system, clients, client.clientId, etag, { capabilities: [...capabilities] });
      },
      form,
    };
  });
  afterAll(() => h?.close());

  /** A new instance over the same database and keys: every cache of its own is empty. */
  async function coldInstance(nonces: boolean): Promise<App> {
    const config: Config = nonces ? { ...h.config, dpopNonces: true, dpopNonceSecret: nonceSecret } : h.config;
    const app = await buildApp(config, { database: h.database, keys: h.keys, logger: false });
    await app.server.ready();
    return app;
  }

  it.each(cases)('$name', async ({ expected, nonces, arrange }) => {
    const arranged = await arrange(world);
    const app = await coldInstance(nonces === true);
    try {
      const cold = outcome(await arranged.refused(app));
      const warmUp = await arranged.warmUp(app);
      expect(warmUp.statusCode, warmUp.body).toBeLessThan(300);
      const warm = outcome(await arranged.refused(app));
      expect({ cold, warm }).toEqual({ cold: expected, warm: expected });
    } finally {
      await app.server.close();
    }
  });
});
