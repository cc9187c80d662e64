import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { getResource } from '../../../src/registry/index.js';
import { roleCapabilities } from '../../../src/actions/roles.js';
import { asSystem } from '../../../src/core/principal.js';
import { TenantDirectory } from '../../../src/security/tenant-directory.js';
import { installAuditActionFailure } from '../../support/audit-action-failure.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { TestOidcProvider } from '../../support/oidc-provider.js';
import { expectProblem } from '../../support/problem.js';

const publicUrl = 'http://api.test';
const callback = `${publicUrl}/v1/auth/oauth/local/callback`;
const directCallback = `${publicUrl}/v1/auth/oauth/direct/callback`;
const app = 'https://app.example';
const appCallback = 'https://app.example/signed-in';
const appWithQuery = 'https://app.example/return?tab=bookings';

const accounts = {
  alice: { email: 'alice@example.test', emailVerified: true },
  mallory: { email: 'mallory@example.test', emailVerified: false },
  carol: { email: 'carol@example.test', emailVerified: true },
  nobody: { email: 'nobody@example.test', emailVerified: true },
};
// `local` keeps the e-mail claims in userinfo (oidc-provider's default), `direct` puts them in the ID token.
let provider: TestOidcProvider;
let direct: TestOidcProvider;
beforeAll(async () => {
  [provider, direct] = await Promise.all([startOidcProvider({ redirectUris: [callback], accounts }), startOidcProvider({ redirectUris: [directCallback], accounts, emailInIdToken: true })]);
});
afterAll(() => Promise.all([provider.close(), direct.close()]));

describe.each(dialects)('OAuth2 login against a real oidc-provider on %s', (dialect) => {
  let h: Harness;
  let tenantA: string;
  let tenantB: string;
  const users: Record<string, string> = {};
  // The service's clock; tests move it forward past the lifetimes of state and code.
  let offset = 0;

  beforeAll(async () => {
    const providers = JSON.stringify([
      { id: 'local', issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret },
      { id: 'direct', issuer: direct.issuer, client_id: direct.clientId, client_secret: direct.clientSecret },
    ]);
    h = await createHarness(dialect, {
      clock: { now: () => Date.now() + offset },
      env: { OAUTH_PROVIDERS: providers, OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_REDIRECT_URIS: `${app},${appCallback},${appWithQuery}` },
    });
    tenantA = await h.tenant('Tenant A');
    tenantB = await h.tenant('Tenant B');
    const directory = new TenantDirectory(h.database);
    const create = async (tenant: string, body: Record<string, unknown>) => {
      const scope = await directory.resolve(tenant);
      if (!scope) throw new Error('no tenant');
      const { record } = await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), body);
      return String(record._id);
    };
    users.aliceA = await create(tenantA, { email: 'Alice@Example.TEST', role: 'staff' });
    users.aliceB = await create(tenantB, { email: 'alice@example.test', role: 'guest' });
    users.malloryA = await create(tenantA, { email: 'mallory@example.test', role: 'admin' });
    // Carol has an account only in tenant B.
    users.carolB = await create(tenantB, { email: 'carol@example.test', role: 'guest' });
  });
  afterAll(async () => {
    offset = 0;
    await h.close();
  });

  const start = (query: Record<string, string>) => h.request({ method: 'GET', url: `/v1/auth/oauth/local/start?${new URLSearchParams(query).toString()}` });
  /** Our start, then the provider (login and consent as `account`); the URL the provider sends the browser back to. */
  async function atProvider(account: string, tenant: string, tamper: (url: URL) => void = () => undefined) {
    provider.login(account);
    const started = await start({ tenant_id: tenant, redirect_uri: appCallback, state: 'app-state-1' });
    expect(started.statusCode, started.body).toBe(302);
    const authorization = new URL(String(started.headers.location));
    tamper(authorization);
    return provider.authorize(authorization.href, callback);
  }
  const back = (returned: string) => h.request({ method: 'GET', url: returned.slice(publicUrl.length) });
  const exchange = (code: unknown) => h.request({ method: 'POST', url: '/v1/auth/oauth/token', body: { code } });
  /** A full sign-in up to the login code the application receives. */
  async function loginCode(account: string, tenant: string) {
    const answer = await back(await atProvider(account, tenant));
    expect(answer.statusCode, answer.body).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(appCallback);
    return location.searchParams.get('code') ?? '';
  }
  const securityEvents = async (action: string) =>
    h.database.db.selectFrom('audit_logs').select(['action', 'tenant_id', 'actor_type', 'actor_id']).where('category', '=', 'security').where('action', '=', action).execute();

  it('redirects to the discovered authorization endpoint with state, nonce and PKCE S256, and keeps them server-side', async () => {
    const answer = await start({ tenant_id: tenantA, redirect_uri: appCallback });
    expect(answer.statusCode, answer.body).toBe(302);
    expect(answer.headers['cache-control']).toBe('no-store');
    const url = new URL(String(answer.headers.location));
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.issuer}/auth`);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({ client_id: provider.clientId, response_type: 'code', scope: 'openid email', redirect_uri: callback, code_challenge_method: 'S256' });
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(params.nonce).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored keyed by an HMAC: neither the state nor the verifier is readable in the database.
    const rows = await h.database.db.selectFrom('oauth_states').selectAll().where('tenant_id', '=', tenantA).execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.state_hash).not.toBe(params.state);
      expect(row.code_verifier).not.toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('signs a user in: code flow with PKCE, user matched by verified e-mail within the tenant, one-time login code → token with amr fed', async () => {
    const answer = await back(await atProvider('alice', tenantA));
    expect(answer.statusCode, answer.body).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(appCallback);
    expect(location.searchParams.get('state')).toBe('app-state-1');
    const code = location.searchParams.get('code') ?? '';
    const token = await exchange(code);
    expect(token.statusCode, token.body).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    const claims = decodeJwt(token.json().access_token);
    // Alice of tenant A (staff), not Alice of tenant B with the same address.
    expect(claims).toMatchObject({ sub: users.aliceA, actor_type: 'user', tenant_id: tenantA, amr: ['fed'], client_id: 'sign-in' });
    expect(String(claims.scope).split(' ').sort()).toEqual([...roleCapabilities.staff].sort());
    // The token works (same signer and verifier as every other token).
    const products = await h.request({ method: 'GET', url: '/v1/products', token: token.json().access_token });
    expect(products.statusCode, products.body).toBe(200);
    // The code works once.
    expectProblem(await exchange(code), 400, 'invalid_grant');
    // The sign-in is a security event about Alice, with Alice as its actor.
    expect((await securityEvents('sign_in')).filter((e) => e.tenant_id === tenantA)).toContainEqual(expect.objectContaining({ actor_type: 'user', actor_id: users.aliceA }));
  });

  it("matches the user of the tenant named at the start: the same e-mail address in tenant B signs in as tenant B's user", async () => {
    const token = await exchange(await loginCode('alice', tenantB));
    expect(token.statusCode, token.body).toBe(200);
    expect(decodeJwt(token.json().access_token)).toMatchObject({ sub: users.aliceB, tenant_id: tenantB, amr: ['fed'] });
  });

  it('does not match a user of another tenant, nor an unknown address', async () => {
    // Carol exists only in tenant B.
    const carol = await back(await atProvider('carol', tenantA));
    expectProblem(carol, 400, 'invalid_grant');
    expect(carol.headers.location).toBeUndefined();
    const nobody = await back(await atProvider('nobody', tenantA));
    expectProblem(nobody, 400, 'invalid_grant');
    expect(nobody.headers.location).toBeUndefined();
  });

  it('refuses an e-mail address the provider does not mark as verified', async () => {
    const answer = await back(await atProvider('mallory', tenantA));
    const problem = expectProblem(answer, 400, 'invalid_grant');
    // Answered like an unknown address (no enumeration); the event says which check failed.
    expect(problem.detail).toBe(expectProblem(await back(await atProvider('nobody', tenantA)), 400, 'invalid_grant').detail);
    expect(answer.headers.location).toBeUndefined();
    const events = await h.database.db.selectFrom('audit_logs').select('new_values').where('category', '=', 'security').where('action', '=', 'sign_in_failed').execute();
    const reasons = events.map((event) => String(((typeof event.new_values === 'string' ? JSON.parse(event.new_values) : event.new_values) as Record<string, unknown>).reason));
    expect(reasons.some((reason) => /verified/.test(reason))).toBe(true);
  });

  it('refuses a tampered state, a reused state and an expired state, without redirecting', async () => {
    const returned = new URL(await atProvider('alice', tenantA));
    const tampered = new URL(returned);
    const state = tampered.searchParams.get('state') ?? '';
    tampered.searchParams.set('state', `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`);
    const refused = await back(tampered.href);
    expectProblem(refused, 400, 'invalid_grant');
    expect(refused.headers.location).toBeUndefined();
    const missing = new URL(returned);
    missing.searchParams.delete('state');
    expectProblem(await back(missing.href), 400, 'invalid_grant');
    // The untouched answer still works once…
    const first = await back(returned.href);
    expect(first.statusCode, first.body).toBe(302);
    // …and never again.
    const reused = await back(returned.href);
    expectProblem(reused, 400, 'invalid_grant');
    expect(reused.headers.location).toBeUndefined();
    // A state older than 600 s is dead.
    const late = await atProvider('alice', tenantA);
    offset += 601_000;
    try {
      const expired = await back(late);
      expectProblem(expired, 400, 'invalid_grant');
      expect(expired.headers.location).toBeUndefined();
    } finally {
      offset = 0;
    }
  });

  it('appends the code to a whitelisted redirect_uri that has a query of its own', async () => {
    provider.login('alice');
    const started = await start({ tenant_id: tenantA, redirect_uri: appWithQuery });
    expect(started.statusCode, started.body).toBe(302);
    const answer = await back(await provider.authorize(String(started.headers.location), callback));
    expect(answer.statusCode, answer.body).toBe(302);
    expect(String(answer.headers.location)).toMatch(/^https:\/\/app\.example\/return\?tab=bookings&code=[A-Za-z0-9_-]{43}$/);
  });

  it('lets exactly one of parallel callbacks with one state, and one of parallel exchanges of one code, through', async () => {
    const returned = await atProvider('alice', tenantA);
    const answers = await Promise.all([back(returned), back(returned), back(returned)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([302, 400, 400]);
    for (const refused of answers.filter((a) => a.statusCode === 400)) expect(refused.headers.location).toBeUndefined();
    const code = new URL(String(answers.find((a) => a.statusCode === 302)?.headers.location)).searchParams.get('code');
    const tokens = await Promise.all([exchange(code), exchange(code), exchange(code)]);
    expect(tokens.map((t) => t.statusCode).sort()).toEqual([200, 400, 400]);
  });

  it('takes the e-mail claims from the ID token when the provider puts them there', async () => {
    direct.login('alice');
    const started = await h.request({ method: 'GET', url: `/v1/auth/oauth/direct/start?tenant_id=${tenantA}&redirect_uri=${encodeURIComponent(app)}` });
    expect(started.statusCode, started.body).toBe(302);
    const answer = await back(await direct.authorize(String(started.headers.location), directCallback));
    expect(answer.statusCode, answer.body).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(`${app}/`);
    expect(String(answer.headers.location).startsWith(`${app}?code=`)).toBe(true);
    expect(location.searchParams.has('state')).toBe(false);
    const token = await exchange(location.searchParams.get('code'));
    expect(token.statusCode, token.body).toBe(200);
    expect(decodeJwt(token.json().access_token)).toMatchObject({ sub: users.aliceA, amr: ['fed'] });
  });

  it("refuses a state at another provider's callback (and burns it), and a callback of an unknown provider, without redirecting", async () => {
    const returned = await atProvider('alice', tenantA);
    const elsewhere = await h.request({ method: 'GET', url: returned.slice(publicUrl.length).replace('/oauth/local/', '/oauth/direct/') });
    expectProblem(elsewhere, 400, 'invalid_grant');
    expect(elsewhere.headers.location).toBeUndefined();
    expectProblem(await back(returned), 400, 'invalid_grant');
    const unknown = await h.request({ method: 'GET', url: returned.slice(publicUrl.length).replace('/oauth/local/', '/oauth/other/') });
    expectProblem(unknown, 404, 'not_found');
    expect(unknown.headers.location).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the one of this sign-in', async () => {
    // The authorization request reaches the provider with another nonce (a replayed or
    // injected response): state and PKCE are right, the ID token's nonce is not.
    const returned = await atProvider('alice', tenantA, (url) => url.searchParams.set('nonce', 'n-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFG'));
    const answer = await back(returned);
    const problem = expectProblem(answer, 400, 'invalid_grant');
    // Every callback refusal answers alike; which check failed is in the security event only.
    expect(problem.detail).toBe('The sign-in with the provider did not succeed; start a new sign-in');
    expect(answer.headers.location).toBeUndefined();
    // The security event keeps the private reason.
    const events = await h.database.db.selectFrom('audit_logs').select('new_values').where('category', '=', 'security').where('action', '=', 'sign_in_failed').execute();
    const details = events.map((event) => (typeof event.new_values === 'string' ? JSON.parse(event.new_values) : event.new_values) as Record<string, unknown>);
    expect(details).toContainEqual({ method: 'oauth', stage: 'callback', provider: 'local', reason: expect.stringContaining('"nonce"') });
  });

  it('refuses a sign-in the provider refused (error=access_denied)', async () => {
    const returned = await atProvider('deny', tenantA);
    expect(new URL(returned).searchParams.get('error')).toBe('access_denied');
    const answer = await back(returned);
    const problem = expectProblem(answer, 400, 'invalid_grant');
    expect(problem.detail).toBe('The sign-in with the provider did not succeed; start a new sign-in');
    expect(answer.headers.location).toBeUndefined();
  });

  it('refuses every redirect_uri that is not exactly a whitelisted one, before any redirect', async () => {
    const offList = [
      'https://app.example.evil',
      'https://app.example.evil/signed-in',
      'https://app.example@evil.test',
      'https://app.example@evil.test/signed-in',
      'https://app.example%2F@evil',
      'https://app.example%2F@evil.test/signed-in',
      'https://app.example%252F@evil',
      'https://app.example/',
      'https://app.example/signed-in/',
      'https://app.example/signed-in/..',
      'https://app.example/signed-in?next=https://evil.test',
      'https://app.example/signed-in#x',
      'https://app.example/signed-inx',
      'https://APP.example/signed-in',
      'HTTPS://app.example/signed-in',
      'https://app.example:443/signed-in',
      'http://app.example/signed-in',
      'https://app.example/signed-in ',
      ' https://app.example',
      '//app.example/signed-in',
      'https://evil.test/https://app.example/signed-in',
      'https://evil.test/?https://app.example',
      '',
    ];
    for (const redirect of offList) {
      const answer = await start({ tenant_id: tenantA, redirect_uri: redirect });
      const problem = expectProblem(answer, 400, 'validation_failed');
      expect(
        problem.errors?.map((e) => e.field),
        redirect,
      ).toContain('redirect_uri');
      expect(answer.headers.location, redirect).toBeUndefined();
    }
    // Given twice (one of them whitelisted): refused too.
    const twice = await h.request({ method: 'GET', url: `/v1/auth/oauth/local/start?tenant_id=${tenantA}&redirect_uri=${encodeURIComponent(appCallback)}&redirect_uri=https%3A%2F%2Fevil.test` });
    expectProblem(twice, 400, 'validation_failed');
    expect(twice.headers.location).toBeUndefined();
    // Missing.
    expectProblem(await start({ tenant_id: tenantA }), 400, 'validation_failed');
    // The exact strings are accepted.
    for (const redirect of [app, appCallback]) expect((await start({ tenant_id: tenantA, redirect_uri: redirect })).statusCode, redirect).toBe(302);
    expect((await securityEvents('sign_in_failed')).length).toBeGreaterThan(0);
  });

  it('answers an unknown provider with 404 and an unknown tenant with 400, without redirecting', async () => {
    const provider404 = await h.request({ method: 'GET', url: `/v1/auth/oauth/nope/start?tenant_id=${tenantA}&redirect_uri=${encodeURIComponent(appCallback)}` });
    expectProblem(provider404, 404, 'not_found');
    expect(provider404.headers.location).toBeUndefined();
    for (const tenant of ['no-such-tenant', 'system']) {
      const answer = await start({ tenant_id: tenant, redirect_uri: appCallback });
      const problem = expectProblem(answer, 400, 'validation_failed');
      expect(problem.errors?.map((e) => e.field)).toEqual(['tenant_id']);
      expect(answer.headers.location).toBeUndefined();
    }
    expectProblem(await start({ tenant_id: tenantA, redirect_uri: appCallback, extra: '1' }), 400, 'validation_failed');
  });

  it('refuses a login code that is unknown, reused or older than 60 s', async () => {
    expectProblem(await exchange('A'.repeat(43)), 400, 'invalid_grant');
    expectProblem(await exchange(12345), 400, 'validation_failed');
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/oauth/token', body: { code: 'A'.repeat(43), extra: 1 } }), 400, 'validation_failed');
    const code = await loginCode('alice', tenantA);
    offset += 61_000;
    try {
      const expired = await exchange(code);
      const problem = expectProblem(expired, 400, 'invalid_grant');
      expect(problem).toMatchObject({ error: 'invalid_grant' });
    } finally {
      offset = 0;
    }
    // A fresh code works, once.
    const fresh = await loginCode('alice', tenantA);
    expect((await exchange(fresh)).statusCode).toBe(200);
    expectProblem(await exchange(fresh), 400, 'invalid_grant');
  });

  it('spends a login code and records its sign_in in one transaction: a failed entry leaves the code unspent; then exactly one entry', async () => {
    const failure = await installAuditActionFailure(h.database);
    const code = await loginCode('alice', tenantA);
    const codeRow = () =>
      h.database.db
        .selectFrom('oauth_login_codes')
        .select('used_at')
        .where('user_id', '=', users.aliceA ?? '')
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
    const before = (await securityEvents('sign_in')).length;
    await failure.during('sign_in', async () => {
      const failed = await exchange(code);
      expectProblem(failed, 500, 'internal_error');
      expect(failed.body).not.toMatch(/injected|audit_logs|trigger/i);
    });
    expect((await codeRow()).used_at).toBeNull();
    expect(await securityEvents('sign_in')).toHaveLength(before);
    const signedIn = await exchange(code);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect((await codeRow()).used_at).not.toBeNull();
    expect(await securityEvents('sign_in')).toHaveLength(before + 1);
  });
});

describe('OAuth settings', () => {
  const base = { DATA_DIR: '/tmp/x' };
  const provider = (overrides: Record<string, unknown> = {}) => JSON.stringify([{ id: 'google', issuer: 'https://accounts.google.com', client_id: 'id', client_secret: 'secret', ...overrides }]);

  it('accepts https issuers, http issuers only with OAUTH_ALLOW_HTTP_ISSUERS, and exact redirect URIs; reads OAUTH_PROVIDERS_FILE', () => {
    const config = loadConfig({ ...base, OAUTH_PROVIDERS: provider(), OAUTH_REDIRECT_URIS: 'https://app.example/cb, http://127.0.0.1:8080/cb,com.example.app:/cb' });
    expect(config.oauthProviders).toEqual([{ id: 'google', issuer: 'https://accounts.google.com', clientId: 'id', clientSecret: 'secret' }]);
    expect(config.oauthRedirectUris).toEqual(['https://app.example/cb', 'http://127.0.0.1:8080/cb', 'com.example.app:/cb']);
    expect(Object.isFrozen(config.oauthProviders)).toBe(true);
    expect(config.oauthAllowHttpIssuers).toBe(false);
    const development = loadConfig({ ...base, OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_PROVIDERS: provider({ issuer: 'http://localhost:8080/realms/x' }), OAUTH_REDIRECT_URIS: 'https://a.example' });
    expect(development.oauthProviders[0]?.issuer).toBe('http://localhost:8080/realms/x');
    expect(development.oauthAllowHttpIssuers).toBe(true);
    expect(
      loadConfig({ ...base, OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_PROVIDERS: provider({ issuer: 'http://keycloak:8080/realms/x' }), OAUTH_REDIRECT_URIS: 'https://a.example' }).oauthProviders[0]
        ?.issuer,
    ).toBe('http://keycloak:8080/realms/x');
    const fromFile = loadConfig({ ...base, OAUTH_PROVIDERS_FILE: '/secrets/oauth.json', OAUTH_REDIRECT_URIS: 'https://a.example' }, () => provider({ id: 'entra' }));
    expect(fromFile.oauthProviders[0]?.id).toBe('entra');
    expect(loadConfig(base).oauthProviders).toEqual([]);
  });

  it('fails the boot with a message naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ OAUTH_PROVIDERS: '{', OAUTH_REDIRECT_URIS: 'https://a.example' }, /OAUTH_PROVIDERS must be a JSON array/],
      [{ OAUTH_PROVIDERS: '{}', OAUTH_REDIRECT_URIS: 'https://a.example' }, /OAUTH_PROVIDERS must be a JSON array/],
      [{ OAUTH_PROVIDERS: provider({ issuer: 'http://idp.example' }), OAUTH_REDIRECT_URIS: 'https://a.example' }, /OAUTH_PROVIDERS\[0\]\.issuer must use https/],
      // A loopback issuer is no exception any more: plain http needs the development switch.
      [
        { OAUTH_PROVIDERS: provider({ issuer: 'http://127.0.0.1:8080' }), OAUTH_REDIRECT_URIS: 'https://a.example' },
        /OAUTH_PROVIDERS\[0\]\.issuer must use https \(plain http only with OAUTH_ALLOW_HTTP_ISSUERS=true/,
      ],
      [{ OAUTH_PROVIDERS: provider({ issuer: 'http://localhost:8080' }), OAUTH_ALLOW_HTTP_ISSUERS: 'false', OAUTH_REDIRECT_URIS: 'https://a.example' }, /issuer must use https/],
      [{ OAUTH_PROVIDERS: provider({ issuer: 'ftp://idp.example' }), OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_REDIRECT_URIS: 'https://a.example' }, /issuer must use https/],
      [{ OAUTH_ALLOW_HTTP_ISSUERS: 'yes' }, /OAUTH_ALLOW_HTTP_ISSUERS must be true or false/],
      [{ OAUTH_PROVIDERS: provider({ issuer: 'https://idp.example/?x=1' }), OAUTH_REDIRECT_URIS: 'https://a.example' }, /must not carry a query/],
      [{ OAUTH_PROVIDERS: provider({ id: 'Bad Id' }), OAUTH_REDIRECT_URIS: 'https://a.example' }, /OAUTH_PROVIDERS\[0\]\.id/],
      [{ OAUTH_PROVIDERS: provider({ client_secret: '' }), OAUTH_REDIRECT_URIS: 'https://a.example' }, /client_secret/],
      [{ OAUTH_PROVIDERS: provider({ scopes: 'x' }), OAUTH_REDIRECT_URIS: 'https://a.example' }, /unknown fields: scopes/],
      [{ OAUTH_PROVIDERS: JSON.stringify([JSON.parse(provider())[0], JSON.parse(provider())[0]]), OAUTH_REDIRECT_URIS: 'https://a.example' }, /used twice/],
      [{ OAUTH_PROVIDERS: provider() }, /OAUTH_REDIRECT_URIS must list at least one/],
      [{ OAUTH_REDIRECT_URIS: 'https://a.example/#frag' }, /fragment/],
      [{ OAUTH_REDIRECT_URIS: 'http://a.example/cb' }, /OAUTH_REDIRECT_URIS: .* must use https/],
      [{ OAUTH_REDIRECT_URIS: 'https://user@a.example/cb' }, /credentials/],
      [{ OAUTH_REDIRECT_URIS: 'not a uri' }, /not an absolute URI/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig({ ...base, ...env }), JSON.stringify(env)).toThrow(message);
  });
});
