import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertionClaims, b64url, craftAssertion, expectOAuthError, malleate } from '../../support/assertions.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import type { TestClient } from '../../support/harness.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';

type Craft = (client: TestClient, audience: string) => string;

/** A hand-made assertion with header and claim overrides (`undefined` deletes a claim). */
const crafted =
  (header: Record<string, unknown>, claims: Record<string, unknown> = {}): Craft =>
  (client, audience) =>
    craftAssertion(client, { alg: 'ES256', kid: client.kid, ...header }, assertionClaims(client, audience, claims));

const now = () => Math.floor(Date.now() / 1000);

/** Every assertion here must be refused with 401 invalid_client. */
const badAssertions: ReadonlyArray<readonly [string, Craft]> = [
  ['alg none', (c, aud) => `${b64url(JSON.stringify({ alg: 'none', kid: c.kid }))}.${b64url(JSON.stringify(assertionClaims(c, aud)))}.`],
  [
    'HS256 keyed with the public PEM',
    (c, aud) => {
      const input = `${b64url(JSON.stringify({ alg: 'HS256', kid: c.kid }))}.${b64url(JSON.stringify(assertionClaims(c, aud)))}`;
      return `${input}.${createHmac('sha256', c.key.publicPem).update(input).digest('base64url')}`;
    },
  ],
  [
    'RS256',
    (c, aud) => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const input = `${b64url(JSON.stringify({ alg: 'RS256', kid: c.kid }))}.${b64url(JSON.stringify(assertionClaims(c, aud)))}`;
      return `${input}.${b64url(sign('sha256', Buffer.from(input), privateKey))}`;
    },
  ],
  ['an all-zero ECDSA signature', (c, aud) => `${crafted({})(c, aud).split('.').slice(0, 2).join('.')}.${b64url(new Uint8Array(64))}`],
  ['a signature from another key', (c, aud) => craftAssertion({ ...c, key: clientKeyPair() }, { alg: 'ES256', kid: c.kid }, assertionClaims(c, aud))],
  ['two segments', (c, aud) => crafted({})(c, aud).split('.').slice(0, 2).join('.')],
  ['four segments', (c, aud) => `${crafted({})(c, aud)}.AAAA`],
  ['padded base64', (c, aud) => crafted({})(c, aud).replace('.', '==.')],
  ['a header that is not JSON', (c, aud) => `${b64url('{alg:ES256')}.${crafted({})(c, aud).split('.').slice(1).join('.')}`],
  ['a header that is an array', (c, aud) => craftAssertion(c, '["ES256"]', assertionClaims(c, aud))],
  ['a duplicate header member', (c, aud) => craftAssertion(c, `{"alg":"ES256","kid":${JSON.stringify(c.kid)},"kid":"other"}`, assertionClaims(c, aud))],
  ['a duplicate payload member', (c, aud) => craftAssertion(c, { alg: 'ES256', kid: c.kid }, JSON.stringify(assertionClaims(c, aud)).replace('{', '{"iss":"intruder",'))],
  ['an unknown kid', crafted({ kid: 'no-such-key' })],
  ["kid ' OR '1'='1", crafted({ kid: "' OR '1'='1" })],
  ['kid with a NUL byte', crafted({ kid: 'a\u0000b' })],
  ['kid ../../../dev/null', crafted({ kid: '../../../dev/null' })],
  ['kid closing a SQL string', crafted({ kid: 'x"; DROP TABLE api_client_keys; --' })],
  ['a wrong iss', crafted({}, { iss: 'someone-else' })],
  ['a wrong sub', crafted({}, { sub: 'someone-else' })],
  ['aud = the issuer instead of the token endpoint', crafted({}, { aud: 'http://api.test/v1' })],
  ['aud with a trailing slash', (c, aud) => crafted({}, { aud: `${aud}/` })(c, aud)],
  ['aud as an array holding the token endpoint and another audience', (c, aud) => crafted({}, { aud: [aud, 'https://attacker.example'] })(c, aud)],
  ['aud as an array holding only the token endpoint', (c, aud) => crafted({}, { aud: [aud] })(c, aud)],
  ['no jti', crafted({}, { jti: undefined })],
  ['no iat', crafted({}, { iat: undefined })],
  ['no sub', crafted({}, { sub: undefined })],
  ['no exp', crafted({}, { exp: undefined })],
  ['exp - iat of 301 s', crafted({}, { iat: now(), exp: now() + 301 })],
  ['an expired assertion', crafted({}, { iat: now() - 250, exp: now() - 120 })],
  ['iat 120 s in the future', crafted({}, { iat: now() + 120, exp: now() + 180 })],
  ['typ at+jwt', crafted({ typ: 'at+jwt' })],
  ['typ dpop+jwt', crafted({ typ: 'dpop+jwt' })],
  ['a crit header', crafted({ crit: ['exp'] })],
  ['a jku header', crafted({ jku: 'https://attacker.example/jwks.json' })],
  ['an x5u header', crafted({ x5u: 'https://attacker.example/cert.pem' })],
  [
    'an embedded jwk of the key that signed it',
    (c, aud) => {
      const attacker = { ...c, key: clientKeyPair() };
      const jwk = attacker.key.privateKey.export({ format: 'jwk' });
      return craftAssertion(attacker, { alg: 'ES256', kid: c.kid, jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } }, assertionClaims(c, aud));
    },
  ],
];

describe.each(dialects)('token endpoint on %s', (dialect) => {
  let h: AuthHarness;
  let tenant: string;
  let client: TestClient;
  let admin: string;

  beforeAll(async () => {
    h = await createAuthHarness(dialect);
    tenant = await h.tenant('Acme');
    client = await h.client(tenant, ['products:list', 'products:read', 'bookings:read']);
    // Holds what the clients it disables or re-keys hold (the grant ceiling).
    admin = await h.bearer(tenant, ['api-clients:read', 'api-clients:update', 'api-clients:rotate-key', 'products:list']);
  });
  afterAll(() => h.close());

  describe('request shape', () => {
    it('refuses a JSON body with 400 invalid_request', async () => {
      const form = await h.assertionForm(client);
      const res = await h.app.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(form) });
      expectOAuthError(res, 400, 'invalid_request');
    });

    it('refuses a duplicated form field with 400 invalid_request', async () => {
      const form = new URLSearchParams(await h.assertionForm(client, { scope: 'products:list' }));
      form.append('scope', 'products:read');
      expectOAuthError(await h.tokenRequest(form.toString()), 400, 'invalid_request');
    });

    it.each(['grant_type', 'client_id', 'client_assertion_type', 'client_assertion'])('refuses a request without %s with 400 invalid_request', async (field) => {
      const form = await h.assertionForm(client);
      delete form[field];
      expectOAuthError(await h.tokenRequest(form), 400, 'invalid_request');
    });

    it('refuses a form that is not valid UTF-8 with 400 invalid_request, though the bytes sit in a parameter it would ignore', async () => {
      const form = new URLSearchParams(await h.assertionForm(client)).toString();
      const send = (extra: readonly number[]) =>
        h.app.server.inject({
          method: 'POST',
          url: '/v1/auth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: Buffer.concat([Buffer.from(`${form}&note=a`), Buffer.from(extra)]),
        });
      expectOAuthError(await send([0xff, 0xfe]), 400, 'invalid_request');
      expectOAuthError(await send([0xe2, 0x82]), 400, 'invalid_request');
      // Control: the same form with a valid multi-byte character issues a token.
      const fresh = new URLSearchParams(await h.assertionForm(client)).toString();
      const ok = await h.app.server.inject({
        method: 'POST',
        url: '/v1/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: Buffer.from(`${fresh}&note=a€`),
      });
      expect(ok.statusCode, ok.body).toBe(200);
    });

    it.each(['iso-8859-1', 'windows-1252', 'utf-16'])('refuses a form declared charset=%s with 400 invalid_request (the form is UTF-8, RFC 6749 appendix B)', async (charset) => {
      const declared = (value: string) => ({ headers: { 'content-type': `application/x-www-form-urlencoded; charset=${value}` } });
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client), declared(charset)), 400, 'invalid_request');
      const ok = await h.tokenRequest(await h.assertionForm(client), declared('"UTF-8"'));
      expect(ok.statusCode, ok.body).toBe(200);
    });

    it('refuses an Authorization header with 400 invalid_request', async () => {
      const res = await h.tokenRequest(await h.assertionForm(client), { headers: { authorization: `Basic ${b64url(`${client.clientId}:secret`)}` } });
      expectOAuthError(res, 400, 'invalid_request');
    });

    it.each(['gzip', 'br', 'deflate'])('refuses a form with Content-Encoding: %s with 400 invalid_request, issuing no token', async (coding) => {
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client), { headers: { 'content-encoding': coding } }), 400, 'invalid_request');
      expect((await h.tokenRequest(await h.assertionForm(client), { headers: { 'content-encoding': 'identity' } })).statusCode).toBe(200);
    });

    it('refuses another grant_type with 400 unsupported_grant_type', async () => {
      const form = { ...(await h.assertionForm(client)), grant_type: 'password' };
      expectOAuthError(await h.tokenRequest(form), 400, 'unsupported_grant_type');
    });

    it('refuses another client_assertion_type with 401 invalid_client', async () => {
      const form = { ...(await h.assertionForm(client)), client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' };
      expectOAuthError(await h.tokenRequest(form), 401, 'invalid_client');
    });
  });

  describe('garbage never causes a 500', () => {
    const form = async () => new URLSearchParams(await h.assertionForm(client)).toString();
    const cases: ReadonlyArray<readonly [string, () => Promise<{ payload: string | Buffer; type?: string; headers?: Record<string, string> }>]> = [
      ['no body and no content type', async () => ({ payload: '' })],
      ['an empty form', async () => ({ payload: '', type: 'application/x-www-form-urlencoded' })],
      ['binary bytes', async () => ({ payload: Buffer.from([0, 255, 254, 1, 37, 255, 61, 38, 0]), type: 'application/x-www-form-urlencoded' })],
      ['a body over the size limit', async () => ({ payload: `client_id=${'a'.repeat(200_000)}`, type: 'application/x-www-form-urlencoded' })],
      ['malformed JSON', async () => ({ payload: '{"grant_type":', type: 'application/json' })],
      [
        'a client_id of 60 000 characters',
        async () => ({ payload: new URLSearchParams({ ...(await h.assertionForm(client)), client_id: 'x'.repeat(60_000) }).toString(), type: 'application/x-www-form-urlencoded' }),
      ],
      [
        'a client_id with a NUL byte',
        async () => ({ payload: new URLSearchParams({ ...(await h.assertionForm(client)), client_id: 'a\u0000b' }).toString(), type: 'application/x-www-form-urlencoded' }),
      ],
      [
        'a client_id of invalid percent escapes',
        async () => ({ payload: `grant_type=client_credentials&client_id=%FF%FE%C3&client_assertion_type=x&client_assertion=y`, type: 'application/x-www-form-urlencoded' }),
      ],
      [
        'an assertion of 60 000 characters',
        async () => ({ payload: new URLSearchParams({ ...(await h.assertionForm(client)), client_assertion: 'a.b.'.repeat(15_000) }).toString(), type: 'application/x-www-form-urlencoded' }),
      ],
      [
        'a scope of 60 000 characters',
        async () => ({ payload: new URLSearchParams(await h.assertionForm(client, { scope: 'x'.repeat(60_000) })).toString(), type: 'application/x-www-form-urlencoded' }),
      ],
      ['a DPoP header of 10 000 characters', async () => ({ payload: await form(), type: 'application/x-www-form-urlencoded', headers: { dpop: 'a'.repeat(10_000) } })],
      ['an empty DPoP header', async () => ({ payload: await form(), type: 'application/x-www-form-urlencoded', headers: { dpop: '' } })],
      ['a DPoP header of three dots', async () => ({ payload: await form(), type: 'application/x-www-form-urlencoded', headers: { dpop: '...' } })],
      ['a multipart body', async () => ({ payload: '--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--', type: 'multipart/form-data; boundary=x' })],
    ];

    it.each(cases)('answers %s with a 4xx OAuth error', async (_name, build) => {
      const { payload, type, headers } = await build();
      const res = await h.app.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { ...(type ? { 'content-type': type } : {}), ...headers }, payload });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Object.keys(res.json() as object).sort()).toEqual(['error', 'error_description']);
    });
  });

  describe('client authentication', () => {
    it('refuses an unknown client with 401 invalid_client', async () => {
      const stranger = await h.client(tenant, ['products:list']);
      const form = await h.assertionForm({ ...stranger, clientId: '0190a0a0-0000-7000-8000-000000000000' });
      expectOAuthError(await h.tokenRequest(form), 401, 'invalid_client');
    });

    it.each(badAssertions)('refuses %s with 401 invalid_client and only the generic description', async (_name, build) => {
      const res = await h.tokenRequest(await h.assertionForm(client, { assertion: build(client, h.config.tokenEndpoint) }));
      expectOAuthError(res, 401, 'invalid_client');
    });

    it('refuses an assertion for this client signed with another registered client’s key and kid', async () => {
      const other = await h.client(tenant, ['products:list']);
      const assertion = craftAssertion(other, { alg: 'ES256', kid: other.kid }, assertionClaims(client, h.config.tokenEndpoint));
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client, { assertion })), 401, 'invalid_client');
    });

    it('still issues tokens after the injection attempts (the key table is intact)', async () => {
      expect((await h.tokenRequest(await h.assertionForm(client))).statusCode).toBe(200);
    });

    it('accepts typ JWT; refuses an assertion without kid even when the client has one key (the kid selects the key)', async () => {
      expect((await h.tokenRequest(await h.assertionForm(client, { assertion: crafted({ typ: 'JWT' })(client, h.config.tokenEndpoint) }))).statusCode).toBe(200);
      const noKid = craftAssertion(client, { alg: 'ES256' }, assertionClaims(client, h.config.tokenEndpoint));
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client, { assertion: noKid })), 401, 'invalid_client');
    });

    it('refuses a disabled client with 401 invalid_client', async () => {
      const victim = await h.client(tenant, ['products:list']);
      const token = await h.token(victim);
      const read = await h.request({ method: 'GET', url: `/v1/api-clients/${victim.clientId}`, token: admin });
      const patched = await h.request({ method: 'PATCH', url: `/v1/api-clients/${victim.clientId}`, token: admin, body: { disabled: true }, headers: { 'if-match': String(read.headers.etag) } });
      expect(patched.statusCode).toBe(200);
      expectOAuthError(await h.tokenRequest(await h.assertionForm(victim)), 401, 'invalid_client');
      const call = await h.request({ method: 'GET', url: '/v1/products', token });
      expect(call.statusCode).toBe(401);
      expect(call.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    });

    it('refuses a key whose active_until has passed after a rotation with overlap_days 0', async () => {
      const rotating = await h.client(tenant, ['products:list']);
      const next = clientKeyPair();
      const res = await h.request({ method: 'POST', url: `/v1/api-clients/${rotating.clientId}/keys`, token: admin, body: { public_key: next.publicPem, kid: 'second', overlap_days: 0 } });
      expect(res.statusCode).toBe(201);
      expectOAuthError(await h.tokenRequest(await h.assertionForm(rotating)), 401, 'invalid_client');
      expect((await h.tokenRequest(await h.assertionForm({ ...rotating, key: next, kid: 'second' }))).statusCode).toBe(200);
    });
  });

  describe('replay', () => {
    it('refuses a reused jti with 401 invalid_client', async () => {
      const form = await h.assertionForm(client);
      expect((await h.tokenRequest(form)).statusCode).toBe(200);
      expectOAuthError(await h.tokenRequest(form), 401, 'invalid_client');
    });

    it('issues exactly one token for ten identical assertions sent at once', async () => {
      const form = await h.assertionForm(client);
      const results = await Promise.all(Array.from({ length: 10 }, () => h.tokenRequest(form)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, ...Array<number>(9).fill(401)]);
      for (const res of results.filter((r) => r.statusCode !== 200)) expectOAuthError(res, 401, 'invalid_client');
    });

    it('treats a re-encoded signature (s → n − s) as the same (iss, jti)', async () => {
      const original = await signAssertion(client.key, client.clientId, h.config.tokenEndpoint, { kid: client.kid });
      const twin = malleate(original);
      expect(twin).not.toBe(original);
      expect((await h.tokenRequest(await h.assertionForm(client, { assertion: twin }))).statusCode).toBe(200);
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client, { assertion: original })), 401, 'invalid_client');
    });
  });

  describe('scope', () => {
    it('refuses an unknown scope with 400 invalid_scope', async () => {
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client, { scope: 'products:list products:teleport' })), 400, 'invalid_scope');
    });

    it('refuses an empty intersection with 400 invalid_scope', async () => {
      expectOAuthError(await h.tokenRequest(await h.assertionForm(client, { scope: 'orders:list' })), 400, 'invalid_scope');
    });

    it('grants the intersection of the requested and assigned capabilities', async () => {
      const res = await h.tokenRequest(await h.assertionForm(client, { scope: 'products:read orders:list products:list' }));
      expect(res.statusCode).toBe(200);
      expect(res.json().scope).toBe('products:read products:list');
      expect(decodeJwt(res.json().access_token).scope).toBe('products:read products:list');
    });

    it('grants every assigned capability when scope is omitted', async () => {
      const res = await h.tokenRequest(await h.assertionForm(client));
      expect(res.json().scope.split(' ').sort()).toEqual(['bookings:read', 'products:list', 'products:read']);
    });
  });

  it('answers 200 with no-store and an ES512 at+jwt access token carrying the contract claims', async () => {
    const res = await h.tokenRequest(await h.assertionForm(client, { scope: 'products:list' }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'products:list' });
    const header = decodeProtectedHeader(body.access_token);
    expect(header).toEqual({ alg: 'ES512', kid: h.keys.current(now()).kid, typ: 'at+jwt' });
    const claims = decodeJwt(body.access_token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'level', 'scope', 'sub', 'tenant_id']);
    expect(claims).toMatchObject({
      iss: 'http://api.test/v1',
      aud: 'http://api.test/v1',
      sub: client.clientId,
      client_id: client.clientId,
      scope: 'products:list',
      tenant_id: tenant,
      level: 'tenant',
    });
    expect(claims.exp).toBe(Number(claims.iat) + 900);
    expect(Math.abs(Number(claims.iat) - now())).toBeLessThanOrEqual(2);
  });
});

describe.each(dialects)('token endpoint rate limit on %s', (dialect) => {
  let h: AuthHarness;

  beforeAll(async () => {
    h = await createAuthHarness(dialect, { env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_TOKEN: '3' } });
  });
  afterAll(() => h.close());

  it('answers a burst beyond the limit with 429, Retry-After and an OAuth error body', async () => {
    const form = { grant_type: 'client_credentials', client_id: 'nobody', client_assertion_type: 'x', client_assertion: 'y.z.w' };
    for (let i = 0; i < 3; i++) expectOAuthError(await h.tokenRequest(form), 401, 'invalid_client');
    const refused = await h.tokenRequest(form);
    expectOAuthError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-policy']).toMatch(/^"token";q=3;w=\d+$/);
  });
});
