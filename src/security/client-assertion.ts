/**
 * RFC 7523 `private_key_jwt` client authentication. Every structural and header rule is
 * checked before a key is looked up or any signature verified, so malformed or hostile
 * input never reaches the database or the crypto code. Replay (`jti` reuse) is checked by
 * the caller after this returns, keyed on (iss, jti): ECDSA signatures are malleable, so
 * the token bytes are not a stable identity.
 */
import type { KeyObject } from 'node:crypto';
import { compactVerify, type CryptoKey } from 'jose';
import { CompactJwsError, decodeCompactJws, type DecodedCompactJws } from './compact-jws.js';
import { OAuthError } from './oauth-error.js';
import type { ClientKeyAlg } from './public-key.js';

/** A registered client key as the caller's lookup returns it. */
export interface ClientKey {
  readonly kid: string;
  readonly alg: ClientKeyAlg;
  readonly key: KeyObject | CryptoKey;
  /** End of the rotation overlap (epoch s); `null` while the key is current. */
  readonly activeUntil: number | null;
}

export interface ClientAssertionOptions {
  /** The `client_id` form field; `iss` and `sub` must equal it. */
  readonly clientId: string;
  /** The exact token endpoint URL. */
  readonly audience: string;
  /** Current time, epoch seconds. */
  readonly now: number;
  /** Longest allowed `exp - iat`, and the oldest allowed `iat`; default 300. */
  readonly maxLifetimeSeconds?: number;
  /** Tolerance for clock differences; default 60. */
  readonly clockSkewSeconds?: number;
  /** The client's key for the header `kid` (or its only key when `kid` is absent). */
  findKey(kid: string): Promise<ClientKey | undefined>;
}

/** What a valid assertion establishes. */
export interface VerifiedAssertion {
  readonly clientId: string;
  readonly kid: string;
  readonly jti: string;
  readonly exp: number;
  readonly iat: number;
}

const allowedAlgs: ReadonlySet<string> = new Set<ClientKeyAlg>(['ES256', 'ES384', 'ES512']);
// Headers naming keys by reference or by value: honouring any of them lets the sender
// choose the verification key, so they are refused rather than ignored.
const forbiddenHeaders = ['jku', 'x5u', 'x5c', 'jwk', 'crit', 'b64'] as const;
const printable = /^[\x20-\x7e]{1,200}$/;
// An ES512 assertion with a 200-character kid stays far below this.
const maxAssertionLength = 16_384;

function fail(reason: string, cause?: unknown): never {
  throw new OAuthError('invalid_client', reason, { cause });
}

/** Verifies a client assertion; every failure is an `invalid_client` {@link OAuthError}. */
export async function verifyClientAssertion(assertion: string, options: ClientAssertionOptions): Promise<VerifiedAssertion> {
  if (typeof assertion !== 'string') fail('assertion is not a string');
  const { header, payload } = decode(assertion);
  const kid = checkHeader(header);

  const key = await options.findKey(kid);
  if (!key) fail('unknown client key (kid)');
  if (key.activeUntil !== null && key.activeUntil <= options.now) fail(`client key ${key.kid} expired (active_until passed)`);
  if (header.alg !== key.alg) fail(`alg ${String(header.alg)} does not match the key's ${key.alg}`);
  try {
    await compactVerify(assertion, key.key, { algorithms: [key.alg] });
  } catch (cause) {
    fail('signature verification failed', cause);
  }
  return checkClaims(payload, key.kid, options);
}

function decode(assertion: string): DecodedCompactJws {
  try {
    return decodeCompactJws(assertion, maxAssertionLength);
  } catch (error) {
    if (error instanceof CompactJwsError) fail(`malformed assertion: ${error.reason}`);
    throw error;
  }
}

function checkHeader(header: Readonly<Record<string, unknown>>): string {
  const { alg, typ, kid } = header;
  if (typeof alg !== 'string' || !allowedAlgs.has(alg)) fail(`alg ${JSON.stringify(alg)?.slice(0, 20)} is not allowed`);
  if (typ !== undefined && (typeof typ !== 'string' || typ.toLowerCase() !== 'jwt')) fail('typ header must be absent or JWT');
  for (const name of forbiddenHeaders) {
    if (name in header) fail(`header ${name} is not allowed`);
  }
  // The seed: "The assertion's kid header selects the key"; no guessing which key was meant.
  if (kid === undefined) fail('kid header is required: it names the registered client key');
  if (typeof kid !== 'string' || !printable.test(kid)) fail('kid must be 1 to 200 printable ASCII characters');
  return kid;
}

function checkClaims(payload: Readonly<Record<string, unknown>>, kid: string, options: ClientAssertionOptions): VerifiedAssertion {
  const { clientId, audience, now } = options;
  const maxLifetime = options.maxLifetimeSeconds ?? 300;
  const skew = options.clockSkewSeconds ?? 60;
  const { iss, sub, aud, jti, iat, exp, nbf } = payload;

  if (iss !== clientId) fail('iss does not equal client_id');
  if (sub !== clientId) fail('sub does not equal client_id');
  // One string only: an array that also names another audience is the audience-injection
  // shape of draft-ietf-oauth-rfc7523bis, so it is refused even when it holds the endpoint.
  if (Array.isArray(aud)) fail('aud is an array; it must be the token endpoint as one string');
  if (aud !== audience) fail('aud does not match the token endpoint');
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 200) fail('jti missing or not a string of 1 to 200 characters');
  if (!isTime(iat)) fail('iat missing or not a number');
  if (!isTime(exp)) fail('exp missing or not a number');
  if (nbf !== undefined && !isTime(nbf)) fail('nbf is not a number');

  if (exp <= iat) fail('exp is not after iat');
  if (exp <= now - skew) fail('assertion expired');
  if (iat > now + skew) fail('iat is in the future beyond clock skew');
  // Implied by the two rules around it, kept explicit so an old assertion says so in logs.
  if (iat < now - maxLifetime - skew) fail(`iat is older than ${maxLifetime} s`);
  if (exp - iat > maxLifetime) fail(`lifetime exp - iat exceeds ${maxLifetime} s`);
  if (nbf !== undefined && nbf > now + skew) fail('nbf is in the future beyond clock skew');

  return { clientId, kid, jti, exp, iat };
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
