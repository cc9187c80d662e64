import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { verifyClientAssertion, type ClientAssertionOptions, type ClientKey } from '../../../src/security/client-assertion.js';
import { OAuthError } from '../../../src/security/oauth-error.js';
import { importClientPublicKey, type ClientKeyAlg } from '../../../src/security/public-key.js';
import { b64url, signCompact, withSignature } from './jws-helpers.js';

const now = 1_800_000_000;
const clientId = 'client-123';
const audience = 'https://api.example.com/v1/auth/token';
const curveByAlg: Record<ClientKeyAlg, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

interface TestClient {
  readonly privateKey: KeyObject;
  readonly pem: string;
  readonly key: ClientKey;
}

async function makeClient(alg: ClientKeyAlg = 'ES256', activeUntil: number | null = null): Promise<TestClient> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curveByAlg[alg] });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const imported = await importClientPublicKey(pem);
  return { privateKey, pem, key: { kid: 'key-1', alg: imported.alg, key: imported.key, activeUntil } };
}

const es256 = await makeClient('ES256');

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: clientId, sub: clientId, aud: audience, jti: 'jti-1', iat: now, exp: now + 120, ...overrides };
}

function assertion(headerOverrides: Record<string, unknown> = {}, payload: Record<string, unknown> = claims(), client = es256): string {
  return signCompact({ alg: client.key.alg, kid: client.key.kid, ...headerOverrides }, payload, client.privateKey);
}

function options(client = es256, overrides: Partial<ClientAssertionOptions> = {}): ClientAssertionOptions {
  return {
    clientId,
    audience,
    now,
    maxLifetimeSeconds: 300,
    clockSkewSeconds: 60,
    findKey: async (kid) => (kid === client.key.kid ? client.key : undefined),
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OAuthError);
  const oauth = error as OAuthError;
  expect(oauth.error).toBe('invalid_client');
  expect(oauth.status).toBe(401);
  expect(oauth.description).toBe('Client authentication failed.');
  return oauth;
}

async function expectRefused(token: string, reason: string, opts = options()): Promise<void> {
  expect((await refusal(verifyClientAssertion(token, opts))).privateReason).toContain(reason);
}

describe('verifyClientAssertion: valid assertions', () => {
  it.each(['ES256', 'ES384', 'ES512'] as const)('accepts a valid %s assertion', async (alg) => {
    const client = await makeClient(alg);
    const result = await verifyClientAssertion(assertion({}, claims(), client), options(client));
    expect(result).toEqual({ clientId, kid: 'key-1', jti: 'jti-1', iat: now, exp: now + 120 });
  });

  it('accepts typ JWT (any case) and a key within its overlap', async () => {
    const client = await makeClient('ES256', now + 1);
    await expect(verifyClientAssertion(assertion({ typ: 'JWT' }, claims(), client), options(client))).resolves.toBeDefined();
    await expect(verifyClientAssertion(assertion({ typ: 'jwt' }, claims(), client), options(client))).resolves.toBeDefined();
  });

  it('refuses an assertion without kid before looking up any key: the kid selects the key', async () => {
    const findKey = vi.fn(async () => es256.key);
    const token = signCompact({ alg: 'ES256' }, claims(), es256.privateKey);
    await expectRefused(token, 'kid header is required', options(es256, { findKey }));
    expect(findKey).not.toHaveBeenCalled();
  });
});

describe('verifyClientAssertion: algorithms and signatures', () => {
  it('refuses alg none before looking up a key', async () => {
    const findKey = vi.fn(async () => es256.key);
    const none = `${b64url(JSON.stringify({ alg: 'none', kid: 'key-1' }))}.${b64url(JSON.stringify(claims()))}.AAAA`;
    await expectRefused(none, 'alg "none" is not allowed', options(es256, { findKey }));
    await expectRefused(none.slice(0, -4), 'malformed assertion');
    expect(findKey).not.toHaveBeenCalled();
  });

  it('refuses HS256 signed with the public key PEM as HMAC secret', async () => {
    const input = `${b64url(JSON.stringify({ alg: 'HS256', kid: 'key-1' }))}.${b64url(JSON.stringify(claims()))}`;
    const mac = createHmac('sha256', es256.pem).update(input).digest('base64url');
    await expectRefused(`${input}.${mac}`, 'alg "HS256" is not allowed');
  });

  it.each(['RS256', 'PS256'])('refuses %s', async (alg) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await expectRefused(signCompact({ alg, kid: 'key-1' }, claims(), privateKey), `alg "${alg}" is not allowed`);
  });

  it('refuses an ES384 header for a P-256 key (curve binding)', async () => {
    await expectRefused(signCompact({ alg: 'ES384', kid: 'key-1' }, claims(), es256.privateKey), 'does not match the key');
  });

  it('refuses a signature by another key', async () => {
    const other = await makeClient('ES256');
    await expectRefused(assertion({}, claims(), other), 'signature verification failed');
  });

  it('refuses an all-zero signature and signatures of the wrong length', async () => {
    const token = assertion();
    await expectRefused(withSignature(token, new Uint8Array(64)), 'signature verification failed');
    await expectRefused(withSignature(token, Buffer.from(token.split('.')[2] as string, 'base64url').subarray(0, 63)), 'signature verification failed');
    await expectRefused(withSignature(token, new Uint8Array(72).fill(1)), 'signature verification failed');
  });

  it('a malleated signature (s → n − s) cannot yield a new jti, so replay is keyed on (iss, jti)', async () => {
    // P-256 group order. ECDSA verification accepts (r, n − s) as well as (r, s): the token
    // bytes change while the claims do not, so a replay cache keyed on the bytes is bypassed.
    const n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
    const token = assertion();
    const signature = Buffer.from(token.split('.')[2] as string, 'base64url');
    const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
    const flipped = Buffer.concat([signature.subarray(0, 32), Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex')]);
    const malleated = withSignature(token, flipped);
    expect(malleated).not.toBe(token);
    const original = await verifyClientAssertion(token, options());
    const outcome = await verifyClientAssertion(malleated, options()).catch((error: unknown) => error);
    if (outcome instanceof OAuthError) expect(outcome.privateReason).toContain('signature');
    else expect(outcome).toMatchObject({ jti: original.jti, clientId: original.clientId });
  });
});

/** The same bytes with one of the unused trailing bits set (a 64-byte value leaves 4 spare bits). */
function nonCanonical(segment: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return segment.slice(0, -1) + alphabet[alphabet.indexOf(segment.slice(-1)) + 1];
}

describe('verifyClientAssertion: structure', () => {
  const token = assertion();
  const [header, payload, signature] = token.split('.') as [string, string, string];

  it.each([
    ['two segments', `${header}.${payload}`, 'expected 3 segments'],
    ['four segments', `${token}.${signature}`, 'expected 3 segments'],
    ['padding', `${header}=.${payload}.${signature}`, 'not unpadded base64url'],
    ['standard base64 characters', `${header}.${payload}.${signature.slice(0, -2)}+/`, 'not unpadded base64url'],
    ['whitespace', `${header} .${payload}.${signature}`, 'not unpadded base64url'],
    ['non-canonical trailing bits', `${header}.${payload}.${nonCanonical(signature)}`, 'not canonical'],
    ['a JSON array header', `${b64url('["alg","ES256"]')}.${payload}.${signature}`, 'header is not a JSON object'],
    ['a non-JSON payload', `${header}.${b64url('{"iss":')}.${signature}`, 'payload is not valid JSON'],
    ['an empty string', '', 'expected 3 segments'],
  ])('refuses %s', async (_name, malformed, reason) => {
    await expectRefused(malformed, reason);
  });

  it('refuses a duplicate alg member in the header, escaped or not', async () => {
    await expectRefused(signCompact('{"alg":"ES256","kid":"key-1","alg":"ES256"}', claims(), es256.privateKey), 'duplicate member "alg"');
    await expectRefused(signCompact('{"alg":"ES256","kid":"key-1","\\u0061lg":"ES256"}', claims(), es256.privateKey), 'duplicate member "alg"');
  });

  it('refuses a duplicate iss member in the payload', async () => {
    const payloadText = JSON.stringify(claims()).replace('{', `{"iss":"someone-else",`);
    await expectRefused(signCompact({ alg: 'ES256', kid: 'key-1' }, payloadText, es256.privateKey), 'duplicate member "iss"');
  });
});

describe('verifyClientAssertion: header rules and key selection', () => {
  it('refuses an unknown kid', async () => {
    await expectRefused(assertion({ kid: 'nope' }), 'unknown client key');
  });

  it.each(['../../etc/passwd', "' OR 1=1 --"])('passes the injection string %j to findKey verbatim and refuses it', async (kid) => {
    const findKey = vi.fn(async () => undefined);
    await expectRefused(assertion({ kid }), 'unknown client key', options(es256, { findKey }));
    expect(findKey).toHaveBeenCalledWith(kid);
  });

  it.each([
    ['a 10 kB kid', 'k'.repeat(10_240)],
    ['an empty kid', ''],
    ['a kid with control characters', 'a\u0000b'],
    ['a numeric kid', 7],
  ])('refuses %s without calling findKey', async (_name, kid) => {
    const findKey = vi.fn(async () => es256.key);
    await expectRefused(assertion({ kid }), 'kid must be', options(es256, { findKey }));
    expect(findKey).not.toHaveBeenCalled();
  });

  it('refuses a key whose activeUntil has passed (or is now)', async () => {
    for (const activeUntil of [now - 1, now]) {
      const client = { ...es256, key: { ...es256.key, activeUntil } };
      await expectRefused(assertion({}, claims(), client), 'active_until', options(client));
    }
  });

  it.each([['at+jwt'], ['dpop+jwt'], ['JWS'], [1]])('refuses typ %j', async (typ) => {
    await expectRefused(assertion({ typ }), 'typ header');
  });

  it.each([
    ['crit', ['exp']],
    ['b64', false],
    ['jku', 'https://evil.example/jwks'],
    ['x5u', 'https://evil.example/cert'],
    ['x5c', ['MIIB']],
    ['jwk', { kty: 'EC' }],
  ])('refuses the %s header', async (name, value) => {
    await expectRefused(assertion({ [name]: value }), `header ${name} is not allowed`);
  });
});

describe('verifyClientAssertion: claims', () => {
  it.each([
    ['wrong iss', { iss: 'other' }, 'iss does not equal'],
    ['wrong sub', { sub: 'other' }, 'sub does not equal'],
    ['wrong aud', { aud: 'https://api.example.com/v1/auth/token/' }, 'aud does not match'],
    ['aud array without the endpoint', { aud: ['https://other.example'] }, 'aud is an array'],
    ['aud array holding the endpoint and another audience', { aud: ['https://other.example', audience] }, 'aud is an array'],
    ['aud array holding only the endpoint', { aud: [audience] }, 'aud is an array'],
    ['aud as a number', { aud: 42 }, 'aud does not match'],
    ['missing aud', { aud: undefined }, 'aud does not match'],
    ['missing jti', { jti: undefined }, 'jti missing'],
    ['empty jti', { jti: '' }, 'jti missing'],
    ['non-string jti', { jti: 42 }, 'jti missing'],
    ['missing iat', { iat: undefined }, 'iat missing'],
    ['string iat', { iat: String(now) }, 'iat missing'],
    ['missing exp', { exp: undefined }, 'exp missing'],
    ['exp before iat', { exp: now - 1 }, 'exp is not after iat'],
    ['exp - iat > 300', { exp: now + 301 }, 'lifetime'],
    ['expired beyond skew', { iat: now - 200, exp: now - 60 }, 'expired'],
    ['iat in the future beyond 60 s', { iat: now + 61, exp: now + 120 }, 'iat is in the future'],
    ['a very old iat', { iat: now - 1000, exp: now + 100 }, 'iat is older than 300 s'],
    ['nbf in the future beyond skew', { nbf: now + 61 }, 'nbf is in the future'],
  ])('refuses %s', async (_name, overrides, reason) => {
    await expectRefused(assertion({}, claims(overrides)), reason);
  });

  it('refuses an iat of 1e400 (parses to Infinity)', async () => {
    const payloadText = JSON.stringify(claims()).replace(`"iat":${now}`, '"iat":1e400');
    await expectRefused(signCompact({ alg: 'ES256', kid: 'key-1' }, payloadText, es256.privateKey), 'iat missing or not a number');
  });

  it('accepts clock differences within 60 s and fractional times', async () => {
    for (const overrides of [{ iat: now + 60, exp: now + 180 }, { iat: now - 100, exp: now - 59 }, { nbf: now + 60 }, { iat: now + 0.5, exp: now + 100.25 }]) {
      await expect(verifyClientAssertion(assertion({}, claims(overrides)), options())).resolves.toBeDefined();
    }
  });

  it("records nothing: the same assertion verifies twice (replay is the caller's job)", async () => {
    const token = assertion();
    await verifyClientAssertion(token, options());
    await expect(verifyClientAssertion(token, options())).resolves.toMatchObject({ jti: 'jti-1' });
  });
});
