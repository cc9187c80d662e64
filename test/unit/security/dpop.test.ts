import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { computeAth, DpopVerifier, normaliseHtu, verifyDpopProof, type DpopProofOptions } from '../../../src/security/dpop.js';
import { DpopNonces } from '../../../src/security/dpop-nonces.js';
import { OAuthError, TokenError } from '../../../src/security/oauth-error.js';
import { MemoryReplayStore } from '../../../src/security/replay-store.js';
import { b64url, signCompact, withSignature } from './jws-helpers.js';

const now = 1_800_000_000;
const url = 'https://api.example.com/v1/bookings/';
const accessToken = 'eyJ.access.token';

interface ProofKey {
  readonly alg: string;
  readonly privateKey: KeyObject;
  readonly jwk: JWK;
}

function proofKey(alg: 'ES256' | 'ES384' | 'RS256' | 'EdDSA', modulusLength = 2048): ProofKey {
  const pair =
    alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength }) : alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: alg === 'ES256' ? 'P-256' : 'P-384' });
  return { alg, privateKey: pair.privateKey, jwk: pair.publicKey.export({ format: 'jwk' }) as JWK };
}

const es256 = proofKey('ES256');

function proof(payload: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key: ProofKey = es256): string {
  return signCompact({ typ: 'dpop+jwt', alg: key.alg, jwk: key.jwk, ...header }, { jti: 'proof-1', htm: 'GET', htu: url, iat: now, ...payload }, key.privateKey, key.alg);
}

function options(overrides: Partial<DpopProofOptions> = {}): DpopProofOptions {
  return { method: 'GET', url, now, ...overrides };
}

async function expectRefused(promise: Promise<unknown>, reason: string, code = 'invalid_dpop_proof'): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenError);
  expect((error as TokenError).code).toBe(code);
  expect((error as TokenError).privateReason).toContain(reason);
}

describe('verifyDpopProof: valid proofs', () => {
  it.each(['ES256', 'EdDSA', 'RS256'] as const)('accepts a %s proof and returns the RFC 7638 thumbprint', async (alg) => {
    const key = alg === 'ES256' ? es256 : proofKey(alg);
    const result = await verifyDpopProof(proof({}, {}, key), options());
    expect(result).toEqual({ jkt: await calculateJwkThumbprint(key.jwk, 'sha256'), jti: 'proof-1', iat: now });
  });

  it('accepts an ath that matches', async () => {
    const jkt = await calculateJwkThumbprint(es256.jwk, 'sha256');
    const token = proof({ ath: computeAth(accessToken) });
    await expect(verifyDpopProof(token, options({ accessToken }))).resolves.toMatchObject({ jkt });
  });

  it('ignores query and fragment and normalises case, default ports and percent-encoding', async () => {
    const variants: readonly [string, string][] = [
      [url, `${url}?page=2&per_page=10#top`],
      [`${url}?where=%7B%7D`, url],
      ['HTTPS://API.Example.COM:443/v1/bookings/', url],
      ['http://localhost:80/v1/%7euser/a%2fb', 'http://LOCALHOST/v1/~user/a%2Fb'],
      ['https://api.example.com/v1/./bookings/../bookings/', url],
    ];
    for (const [htu, requestUrl] of variants) {
      await expect(verifyDpopProof(proof({ htu }), options({ url: requestUrl }))).resolves.toBeDefined();
    }
  });

  it('computeAth matches the RFC 9449 §7.1 example', () => {
    expect(computeAth('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU')).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
  });
});

describe('verifyDpopProof: header and key', () => {
  it.each([['jwt'], ['JWT'], ['DPoP+JWT'], [undefined]])('refuses typ %j', async (typ) => {
    await expectRefused(verifyDpopProof(proof({}, { typ }), options()), 'typ is not dpop+jwt');
  });

  it.each(['HS256', 'none', 'PS256', 'ES256K'])('refuses alg %s', async (alg) => {
    await expectRefused(verifyDpopProof(proof({}, { alg }), options()), 'alg is not allowed');
  });

  it.each(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'])('refuses a jwk carrying the private member %s', async (member) => {
    await expectRefused(verifyDpopProof(proof({}, { jwk: { ...es256.jwk, [member]: 'AAAA' } }), options()), `private member ${member}`);
  });

  it('refuses a missing jwk, and a jwk whose curve does not fit alg', async () => {
    await expectRefused(verifyDpopProof(proof({}, { jwk: undefined }), options()), 'jwk header missing');
    await expectRefused(verifyDpopProof(proof({}, { jwk: proofKey('ES384').jwk }), options()), 'kty/crv does not match alg');
    await expectRefused(verifyDpopProof(proof({}, { alg: 'ES384' }), options()), 'kty/crv does not match alg');
  });

  it('refuses RSA keys shorter than 2048 bits', async () => {
    await expectRefused(verifyDpopProof(proof({}, {}, proofKey('RS256', 1024)), options()), 'shorter than 2048');
  });

  it('refuses a bad signature, several proofs, duplicate members and malformed proofs', async () => {
    const valid = proof();
    await expectRefused(verifyDpopProof(withSignature(valid, new Uint8Array(64)), options()), 'signature verification failed');
    await expectRefused(verifyDpopProof(`${valid}, ${valid}`, options()), 'more than one DPoP proof');
    const duplicated = signCompact(`{"typ":"dpop+jwt","alg":"ES256","jwk":${JSON.stringify(es256.jwk)},"typ":"dpop+jwt"}`, { jti: 'j', htm: 'GET', htu: url, iat: now }, es256.privateKey);
    await expectRefused(verifyDpopProof(duplicated, options()), 'duplicate member "typ"');
    await expectRefused(verifyDpopProof(`${b64url('{}')}.${b64url('{}')}`, options()), 'malformed proof');
  });

  it('refuses crit and key-reference headers', async () => {
    await expectRefused(verifyDpopProof(proof({}, { crit: ['x'] }), options()), 'header crit');
    await expectRefused(verifyDpopProof(proof({}, { jku: 'https://evil.example' }), options()), 'header jku');
  });
});

describe('verifyDpopProof: claims', () => {
  it.each([
    ['htm mismatch', { htm: 'POST' }, 'htm does not match'],
    ['lower-case htm', { htm: 'get' }, 'htm does not match'],
    ['htu with another path', { htu: 'https://api.example.com/v1/orders/' }, 'htu does not match'],
    ['htu with another host', { htu: 'https://evil.example/v1/bookings/' }, 'htu does not match'],
    ['htu with another scheme', { htu: 'http://api.example.com/v1/bookings/' }, 'htu does not match'],
    ['htu with another port', { htu: 'https://api.example.com:8443/v1/bookings/' }, 'htu does not match'],
    ['relative htu', { htu: '/v1/bookings/' }, 'htu does not match'],
    ['missing jti', { jti: undefined }, 'jti missing'],
    ['overlong jti', { jti: 'j'.repeat(201) }, 'jti missing'],
    ['missing iat', { iat: undefined }, 'iat missing'],
    ['iat 61 s old', { iat: now - 61 }, 'outside the ±60 s window'],
    ['iat 61 s ahead', { iat: now + 61 }, 'outside the ±60 s window'],
  ])('refuses %s', async (_name, payload, reason) => {
    await expectRefused(verifyDpopProof(proof(payload), options()), reason);
  });

  it('accepts iat at the edges of the window', async () => {
    await expect(verifyDpopProof(proof({ iat: now - 60 }), options())).resolves.toBeDefined();
    await expect(verifyDpopProof(proof({ iat: now + 60 }), options())).resolves.toBeDefined();
    await expect(verifyDpopProof(proof({ iat: now - 100 }), options({ iatWindowSeconds: 120 }))).resolves.toBeDefined();
  });

  it('requires ath matching the access token when one is presented', async () => {
    await expectRefused(verifyDpopProof(proof(), options({ accessToken })), 'ath missing');
    await expectRefused(verifyDpopProof(proof({ ath: computeAth('another token') }), options({ accessToken })), 'ath does not match');
  });
});

describe('verifyDpopProof: server nonces', () => {
  it('asks for a nonce when missing or wrong, accepts the right one', async () => {
    await expectRefused(verifyDpopProof(proof(), options({ nonce: 'n-1' })), 'nonce missing', 'use_dpop_nonce');
    await expectRefused(verifyDpopProof(proof({ nonce: 'n-2' }), options({ nonce: 'n-1' })), 'nonce invalid', 'use_dpop_nonce');
    await expect(verifyDpopProof(proof({ nonce: 'n-1' }), options({ nonce: 'n-1' }))).resolves.toBeDefined();
  });

  it('reports an invalid proof as invalid_dpop_proof even when the nonce is also missing', async () => {
    await expectRefused(verifyDpopProof(proof({ htm: 'POST' }), options({ nonce: 'n-1' })), 'htm');
  });

  it('works with DpopNonces as a predicate', async () => {
    const nonces = new DpopNonces({ secret: 'x'.repeat(32), windowSeconds: 300 });
    const nonce = nonces.issue(now);
    const check = (value: string): boolean => nonces.isValid(value, now);
    await expect(verifyDpopProof(proof({ nonce }), options({ nonce: check }))).resolves.toBeDefined();
    await expectRefused(verifyDpopProof(proof({ nonce: `${nonce}x` }), options({ nonce: check })), 'nonce invalid', 'use_dpop_nonce');
  });
});

describe('DpopVerifier', () => {
  const origin = 'https://api.example.com';
  const tokenEndpoint = `${origin}/v1/auth/token`;
  const path = '/v1/bookings/?page=2';
  const verifier = (nonces?: DpopNonces) => new DpopVerifier({ replay: new MemoryReplayStore(), origin, tokenEndpoint, clockSkewSeconds: 60, ...(nonces ? { nonces } : {}) });
  const tokenProof = (payload: Record<string, unknown> = {}) => proof({ htm: 'POST', htu: tokenEndpoint, ...payload });
  const bound = async (payload: Record<string, unknown> = {}, key: ProofKey = es256) => ({
    method: 'GET',
    url: path,
    proof: proof({ ath: computeAth(accessToken), ...payload }, {}, key),
    accessToken,
    jkt: await calculateJwkThumbprint(es256.jwk, 'sha256'),
  });
  const caught = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );
  const challengeOf = (error: unknown) =>
    error instanceof ApiError ? { status: error.status, code: error.code, challenge: error.headers['www-authenticate'], nonce: error.headers['dpop-nonce'] !== undefined } : error;

  it('checks a token-request proof without using it up, and refuses the second claim', async () => {
    const dpop = verifier();
    const checked = await dpop.checkTokenRequestProof(tokenProof({ jti: 'once' }), now);
    expect((await dpop.checkTokenRequestProof(tokenProof({ jti: 'once' }), now)).jti).toBe('once');
    await dpop.claimTokenRequestProof(checked, now);
    const replayed = await caught(dpop.claimTokenRequestProof(checked, now));
    expect(replayed).toBeInstanceOf(OAuthError);
    expect(replayed).toMatchObject({ error: 'invalid_dpop_proof', privateReason: 'dpop proof jti replayed' });
  });

  it('words token-request refusals as OAuth errors, with a fresh nonce when one is wanted', async () => {
    expect(await caught(verifier().checkTokenRequestProof(tokenProof({ htm: 'GET' }), now))).toMatchObject({ error: 'invalid_dpop_proof', headers: {} });
    const nonces = new DpopNonces({ secret: 'n'.repeat(32) });
    const refused = await caught(verifier(nonces).checkTokenRequestProof(tokenProof(), now));
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).error).toBe('use_dpop_nonce');
    expect(nonces.isValid(String((refused as OAuthError).headers['dpop-nonce']), now)).toBe(true);
  });

  it('accepts a bound request once: the replay is invalid_dpop_proof', async () => {
    const dpop = verifier();
    const request = await bound();
    await dpop.verifyBoundRequest(request, now);
    expect(challengeOf(await caught(dpop.verifyBoundRequest(request, now)))).toEqual({
      status: 401,
      code: 'invalid_token',
      challenge: expect.stringContaining('error="invalid_dpop_proof"'),
      nonce: false,
    });
  });

  it('answers a missing proof and a bad one with invalid_dpop_proof, a proof by another key with invalid_token', async () => {
    const dpop = verifier();
    const invalidProof = { status: 401, code: 'invalid_token', challenge: expect.stringMatching(/^DPoP realm="booking-api", error="invalid_dpop_proof", algs="/), nonce: false };
    expect(challengeOf(await caught(dpop.verifyBoundRequest({ ...(await bound()), proof: undefined }, now)))).toEqual(invalidProof);
    expect(challengeOf(await caught(dpop.verifyBoundRequest({ ...(await bound()), proof: ['a', 'b'] }, now)))).toEqual(invalidProof);
    expect(challengeOf(await caught(dpop.verifyBoundRequest(await bound({ htu: `${origin}/v1/orders/` }), now)))).toEqual(invalidProof);
    expect(challengeOf(await caught(dpop.verifyBoundRequest(await bound({}, proofKey('ES256')), now)))).toEqual({
      ...invalidProof,
      challenge: expect.stringMatching(/^DPoP realm="booking-api", error="invalid_token", algs="/),
    });
  });

  it('asks a bound request for a nonce, and accepts the retry', async () => {
    const nonces = new DpopNonces({ secret: 'n'.repeat(32) });
    const dpop = verifier(nonces);
    const refused = await caught(dpop.verifyBoundRequest(await bound({ jti: 'first' }), now));
    expect(challengeOf(refused)).toEqual({ status: 401, code: 'invalid_token', challenge: expect.stringContaining('error="use_dpop_nonce"'), nonce: true });
    await expect(dpop.verifyBoundRequest(await bound({ jti: 'retry', nonce: (refused as ApiError).headers['dpop-nonce'] }), now)).resolves.toBeUndefined();
  });
});

describe('DpopNonces', () => {
  const nonces = new DpopNonces({ secret: 's'.repeat(32), windowSeconds: 300 });
  const slotStart = Math.floor(now / 300) * 300;

  it('accepts a nonce in its own slot and the next, not later', () => {
    const nonce = nonces.issue(slotStart);
    expect(nonce).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(nonces.isValid(nonce, slotStart + 299)).toBe(true);
    expect(nonces.isValid(nonce, slotStart + 599)).toBe(true);
    expect(nonces.isValid(nonce, slotStart + 600)).toBe(false);
    expect(nonces.isValid(nonce, slotStart - 1)).toBe(false);
  });

  it('refuses nonces from another secret, tampered or malformed', () => {
    const other = new DpopNonces({ secret: 't'.repeat(32) });
    expect(nonces.isValid(other.issue(now), now)).toBe(false);
    const [slot, mac] = nonces.issue(now).split('.') as [string, string];
    expect(nonces.isValid(`${(Number.parseInt(slot, 36) + 1).toString(36)}.${mac}`, now + 300)).toBe(false);
    for (const bad of ['', 'abc', `${slot}.`, `${slot}.${mac}.x`, `${slot}.${mac.slice(1)}`]) expect(nonces.isValid(bad, now)).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => new DpopNonces({ secret: 'short' })).toThrow('at least 32 bytes');
  });
});

describe('normaliseHtu', () => {
  it('drops query, fragment, userinfo and refuses non-http URLs', () => {
    expect(normaliseHtu('https://u:p@Example.com:443/a?b#c')).toBe('https://example.com/a');
    expect(normaliseHtu('ftp://example.com/a')).toBeUndefined();
    expect(normaliseHtu('not a url')).toBeUndefined();
  });
});
