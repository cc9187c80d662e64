import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { AccessTokenVerifier, issueAccessToken, type AccessTokenGrant } from '../../../src/security/access-token.js';
import { TokenError } from '../../../src/security/oauth-error.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { b64url } from './jws-helpers.js';

const now = 1_800_000_000;
const issuer = 'https://api.example.com/v1';
const grant: AccessTokenGrant = {
  issuer,
  audience: issuer,
  subject: 'client-1',
  clientId: 'client-1',
  scope: 'bookings:read bookings:list',
  tenantId: 'tenant-1',
  level: 'tenant',
};

const store = await SigningKeyStore.open({ jwks: JSON.stringify({ keys: [{ ...(await privateJwk()), kid: 'sig-1' }] }) }, now);

async function privateJwk(): Promise<Record<string, unknown>> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
  return privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
}

function verifier(cacheMaxEntries?: number): AccessTokenVerifier {
  return new AccessTokenVerifier(store, { issuer, audience: issuer, ...(cacheMaxEntries === undefined ? {} : { cacheMaxEntries }) });
}

async function expectInvalid(promise: Promise<unknown>, reason: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenError);
  expect((error as TokenError).code).toBe('invalid_token');
  expect((error as TokenError).privateReason).toContain(reason);
}

/** Signs arbitrary claims with the store's real key, to forge near-miss tokens. */
async function signWithStore(header: Record<string, unknown>, claims: Record<string, unknown>): Promise<string> {
  const { kid, privateKey } = store.current(now);
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES512', kid, typ: 'at+jwt', ...header }).sign(privateKey);
}

describe('issueAccessToken', () => {
  it('issues an RFC 9068 ES512 token with the contract claims', async () => {
    const { token, claims, expiresAt } = await issueAccessToken(store, grant, now, 900);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES512', kid: 'sig-1', typ: 'at+jwt' });
    expect(claims).toEqual({
      iss: issuer,
      sub: 'client-1',
      client_id: 'client-1',
      aud: issuer,
      scope: 'bookings:read bookings:list',
      tenant_id: 'tenant-1',
      level: 'tenant',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: now,
      exp: now + 900,
    });
    expect(expiresAt).toBe(now + 900);
    expect(Object.isFrozen(claims)).toBe(true);
    await expect(verifier().verify(token, now + 1)).resolves.toEqual(claims);
  });

  it('adds cnf.jkt for a DPoP-bound token and tenant_id "system" for system clients', async () => {
    const { token } = await issueAccessToken(store, { ...grant, tenantId: null, level: 'system', jkt: 'thumb' }, now, 900);
    expect(decodeJwt(token)).toMatchObject({ tenant_id: 'system', level: 'system', cnf: { jkt: 'thumb' } });
    await expect(verifier().verify(token, now)).resolves.toMatchObject({ tenant_id: 'system', level: 'system', cnf: { jkt: 'thumb' } });
  });

  it('still accepts a system token signed before the claim was "system" (tenant_id null) and reads it as "system"', async () => {
    const token = await signWithStore({}, { iss: issuer, aud: issuer, sub: 'c', client_id: 'c', scope: 'products:list', tenant_id: null, level: 'system', jti: 'j', iat: now, exp: now + 900 });
    await expect(verifier().verify(token, now)).resolves.toMatchObject({ tenant_id: 'system', level: 'system' });
  });

  it('gives every token a fresh jti', async () => {
    const a = await issueAccessToken(store, grant, now, 900);
    const b = await issueAccessToken(store, grant, now, 900);
    expect(a.claims.jti).not.toBe(b.claims.jti);
  });
});

describe('AccessTokenVerifier', () => {
  it('verifies the signature once and serves repeats from the cache', async () => {
    const lookup = vi.spyOn(store, 'verificationKey');
    try {
      const { token } = await issueAccessToken(store, grant, now, 900);
      const tokens = verifier();
      const first = await tokens.verify(token, now);
      const second = await tokens.verify(token, now + 10);
      expect(second).toBe(first);
      expect(lookup).toHaveBeenCalledTimes(1);
    } finally {
      lookup.mockRestore();
    }
  });

  it('never verifies a remembered token', async () => {
    const lookup = vi.spyOn(store, 'verificationKey');
    try {
      const { token, claims } = await issueAccessToken(store, grant, now, 900);
      const tokens = verifier();
      tokens.remember(token, claims);
      await expect(tokens.verify(token, now)).resolves.toEqual(claims);
      expect(lookup).not.toHaveBeenCalled();
    } finally {
      lookup.mockRestore();
    }
  });

  it('does not remember a token of another issuer or audience', async () => {
    const { token, claims } = await issueAccessToken(store, { ...grant, audience: 'https://other.example' }, now, 900);
    const tokens = verifier();
    tokens.remember(token, claims);
    await expectInvalid(tokens.verify(token, now), 'aud is not this API');
  });

  it('refuses an expired token, cached or not', async () => {
    const { token, claims } = await issueAccessToken(store, grant, now, 900);
    await expectInvalid(verifier().verify(token, now + 900), 'token expired');
    const cached = verifier();
    cached.remember(token, claims);
    await expectInvalid(cached.verify(token, now + 900), 'expired');
    await expectInvalid(cached.verify(token, now + 900), 'token expired');
  });

  it('evicts the oldest entries when full', async () => {
    const tokens = verifier(2);
    const issued = await Promise.all([1, 2, 3].map(() => issueAccessToken(store, grant, now, 900)));
    for (const { token, claims } of issued) tokens.remember(token, claims);
    const lookup = vi.spyOn(store, 'verificationKey');
    try {
      await tokens.verify(issued[2]?.token as string, now);
      await tokens.verify(issued[1]?.token as string, now);
      expect(lookup).not.toHaveBeenCalled();
      await tokens.verify(issued[0]?.token as string, now);
      expect(lookup).toHaveBeenCalledTimes(1);
    } finally {
      lookup.mockRestore();
    }
  });

  it('refuses a token signed with another algorithm or key', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const es256 = await new SignJWT({ sub: 'client-1' }).setProtectedHeader({ alg: 'ES256', kid: 'sig-1', typ: 'at+jwt' }).sign(privateKey);
    await expectInvalid(verifier().verify(es256, now), 'alg "ES256" is not ES512');
    const other = generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey;
    const { claims } = await issueAccessToken(store, grant, now, 900);
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES512', kid: 'sig-1', typ: 'at+jwt' }).sign(other);
    await expectInvalid(verifier().verify(forged, now), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('refuses unknown or missing kid, alg none and garbage', async () => {
    const { token } = await issueAccessToken(store, grant, now, 900);
    const [, payload, signature] = token.split('.');
    await expectInvalid(verifier().verify(`${b64url(JSON.stringify({ alg: 'ES512', kid: 'nope', typ: 'at+jwt' }))}.${payload}.${signature}`, now), 'unknown or missing kid');
    await expectInvalid(verifier().verify(`${b64url(JSON.stringify({ alg: 'ES512', typ: 'at+jwt' }))}.${payload}.${signature}`, now), 'unknown or missing kid');
    await expectInvalid(verifier().verify(`${b64url(JSON.stringify({ alg: 'none', kid: 'sig-1' }))}.${payload}.`, now), 'malformed token');
    await expectInvalid(verifier().verify(`${b64url(JSON.stringify({ alg: 'none', kid: 'sig-1', typ: 'at+jwt' }))}.${payload}.${signature}`, now), 'alg "none" is not ES512');
    await expectInvalid(verifier().verify('garbage', now), 'malformed');
    await expectInvalid(verifier().verify('', now), 'missing');
  });

  it('refuses the wrong typ, issuer or audience', async () => {
    const { claims } = await issueAccessToken(store, grant, now, 900);
    await expectInvalid(verifier().verify(await signWithStore({ typ: 'JWT' }, { ...claims }), now), 'typ is not at+jwt');
    await expectInvalid(verifier().verify(await signWithStore({}, { ...claims, iss: 'https://evil.example/v1' }), now), 'iss is not this issuer');
    await expectInvalid(verifier().verify(await signWithStore({}, { ...claims, aud: 'https://other.example' }), now), 'aud is not this API');
    await expectInvalid(verifier().verify(await signWithStore({}, { ...claims, aud: [issuer, 'https://other.example'] }), now), 'wrong shape');
    await expectInvalid(verifier().verify(await signWithStore({}, { ...claims, level: 'root' }), now), 'wrong shape');
  });

  it('refuses a tampered token', async () => {
    const { token, claims } = await issueAccessToken(store, grant, now, 900);
    const [header, , signature] = token.split('.');
    const widened = b64url(JSON.stringify({ ...claims, scope: 'bookings:read bookings:delete' }));
    await expectInvalid(verifier().verify(`${header}.${widened}.${signature}`, now), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });
});

describe('AccessTokenVerifier: work done for tokens it has to refuse', () => {
  function counting(options: { refusedTtlSeconds?: number; refusedMaxEntries?: number } = {}) {
    const seen = { checks: [] as boolean[], cached: 0 };
    const tokens = new AccessTokenVerifier(store, {
      issuer,
      audience: issuer,
      ...options,
      observer: { signatureChecked: (valid) => seen.checks.push(valid), refusalCached: () => (seen.cached += 1) },
    });
    return { tokens, seen };
  }

  /** A token with the store's real kid and valid claims but a signature by another key. */
  async function forgery(jti: string): Promise<string> {
    const { claims } = await issueAccessToken(store, grant, now, 900);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey;
    return new SignJWT({ ...claims, jti }).setProtectedHeader({ alg: 'ES512', kid: store.current(now).kid, typ: 'at+jwt' }).sign(other);
  }

  it('checks a forged signature once, then refuses the same token from memory until the TTL ends', async () => {
    const { tokens, seen } = counting({ refusedTtlSeconds: 30 });
    const forged = await forgery('f-1');
    await expectInvalid(tokens.verify(forged, now), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    for (let i = 0; i < 5; i++) await expectInvalid(tokens.verify(forged, now + 29), 'refused earlier');
    expect(seen).toEqual({ checks: [false], cached: 5 });
    await expectInvalid(tokens.verify(forged, now + 30), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(seen.checks).toEqual([false, false]);
  });

  it('keeps at most refusedMaxEntries refused tokens, dropping the oldest', async () => {
    const { tokens, seen } = counting({ refusedMaxEntries: 2 });
    const [a, b, c] = (await Promise.all(['a', 'b', 'c'].map((jti) => forgery(jti)))) as [string, string, string];
    for (const token of [a, b, c]) await expectInvalid(tokens.verify(token, now), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    await expectInvalid(tokens.verify(c, now), 'refused earlier');
    await expectInvalid(tokens.verify(b, now), 'refused earlier');
    await expectInvalid(tokens.verify(a, now), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(seen.checks).toEqual([false, false, false, false]);
  });

  it('refuses without any signature check what cannot pass: garbage, unknown kid, expired, other issuer, wrong shape', async () => {
    const { tokens, seen } = counting();
    const { token, claims } = await issueAccessToken(store, grant, now, 900);
    const kid = store.current(now).kid;
    const head = b64url(JSON.stringify({ alg: 'ES512', kid, typ: 'at+jwt' }));
    const sig = token.split('.')[2] as string;
    const refusals = [
      `${head}.${b64url('not json')}.${sig}`,
      `${head}.${b64url(JSON.stringify({ ...claims, iss: 'https://evil.example/v1' }))}.${sig}`,
      `${head}.${b64url(JSON.stringify({ ...claims, scope: 42 }))}.${sig}`,
      `${b64url(JSON.stringify({ alg: 'ES512', kid: 'other', typ: 'at+jwt' }))}.${token.split('.')[1] as string}.${sig}`,
    ];
    for (const refused of refusals) await expect(tokens.verify(refused, now)).rejects.toBeInstanceOf(TokenError);
    await expectInvalid(tokens.verify(token, now + 900), 'token expired');
    expect(seen.checks).toEqual([]);
    await expect(tokens.verify(token, now)).resolves.toEqual(claims);
    expect(seen.checks).toEqual([true]);
  });

  it('runs beforeCheck for every token it has not verified, and lets it stop the check', async () => {
    const { tokens, seen } = counting();
    const { token, claims } = await issueAccessToken(store, grant, now, 900);
    const gate = vi.fn(async () => undefined);
    await tokens.verify(token, now, gate);
    await tokens.verify(token, now, gate);
    expect(gate).toHaveBeenCalledTimes(1);
    const stop = new Error('429');
    const forged = await forgery('f-2');
    await expect(tokens.verify(forged, now, async () => Promise.reject(stop))).rejects.toBe(stop);
    await expect(tokens.verify('garbage', now, async () => Promise.reject(stop))).rejects.toBe(stop);
    expect(seen.checks).toEqual([true]);
    expect(claims.jti).toBeTruthy();
  });
});
