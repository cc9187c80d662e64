/**
 * DPoP proof verification (RFC 9449 §4.3) and stateless server nonces (§8, §9). Failures
 * throw {@link TokenError} with code `invalid_dpop_proof` or `use_dpop_nonce`; the token
 * endpoint maps them to an OAuthError with the same code. The caller records the returned
 * `jti` in the replay store after success.
 */
import { createHash, createHmac, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, type JWK } from 'jose';
import { CompactJwsError, decodeCompactJws, type DecodedCompactJws } from './compact-jws.js';
import { BoundedCache } from '../lib/bounded-cache.js';
import { TokenError } from './oauth-error.js';

/** Algorithms accepted for DPoP proofs, with the public JWK members each requires. */
const keyShapes: Readonly<Record<string, { readonly kty: string; readonly crv?: string; readonly members: readonly string[] }>> = {
  ES256: { kty: 'EC', crv: 'P-256', members: ['x', 'y'] },
  ES384: { kty: 'EC', crv: 'P-384', members: ['x', 'y'] },
  ES512: { kty: 'EC', crv: 'P-521', members: ['x', 'y'] },
  RS256: { kty: 'RSA', members: ['n', 'e'] },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', members: ['x'] },
};
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'] as const;
const forbiddenHeaders = ['crit', 'b64', 'jku', 'x5u', 'x5c'] as const;
const maxProofLength = 8192;

export interface DpopProofOptions {
  /** The request method, compared exactly with `htm`. */
  readonly method: string;
  /** The request URL; query and fragment are ignored on both sides. */
  readonly url: string;
  /** Current time, epoch seconds. */
  readonly now: number;
  /** Allowed distance of `iat` from `now`, either way; default 60. */
  readonly iatWindowSeconds?: number;
  /** At a protected route: the presented access token; `ath` must then match it. */
  readonly accessToken?: string;
  /** The token's `cnf.jkt`; the proof key's thumbprint must equal it. */
  readonly expectedJkt?: string;
  /** A required server nonce: the exact value, or a predicate such as {@link DpopNonces.isValid}. */
  readonly nonce?: string | ((nonce: string) => boolean);
}

/** What a valid proof establishes. */
export interface VerifiedDpopProof {
  /** RFC 7638 thumbprint of the proof key. */
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
}

function fail(reason: string, cause?: unknown): never {
  throw new TokenError('invalid_dpop_proof', reason, { cause });
}

/** base64url(SHA-256(token)), the `ath` claim of a proof sent with an access token. */
export function computeAth(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Verifies a DPoP proof JWT against the request it came with. */
export async function verifyDpopProof(proof: string, options: DpopProofOptions): Promise<VerifiedDpopProof> {
  if (typeof proof !== 'string') fail('proof is not a string');
  // Several DPoP header fields are joined with commas by HTTP; only one proof is allowed.
  if (proof.includes(',')) fail('more than one DPoP proof');
  const { header, payload } = decode(proof);
  if (header.typ !== 'dpop+jwt') fail('typ is not dpop+jwt');
  for (const name of forbiddenHeaders) {
    if (name in header) fail(`header ${name} is not allowed`);
  }
  const alg = header.alg;
  const shape = typeof alg === 'string' && Object.hasOwn(keyShapes, alg) ? keyShapes[alg] : undefined;
  if (typeof alg !== 'string' || !shape) fail('alg is not allowed');
  const jwk = publicJwk(header.jwk, shape);
  const { key, jkt } = await proofKey(jwk);
  try {
    await compactVerify(proof, key, { algorithms: [alg] });
  } catch (cause) {
    fail('signature verification failed', cause);
  }
  const result = checkClaims(payload, jkt, options);
  checkNonce(payload.nonce, options.nonce);
  return result;
}

function decode(proof: string): DecodedCompactJws {
  try {
    return decodeCompactJws(proof, maxProofLength);
  } catch (error) {
    if (error instanceof CompactJwsError) fail(`malformed proof: ${error.reason}`);
    throw error;
  }
}

/** The embedded key reduced to its public members, after checking it fits `alg`. */
function publicJwk(value: unknown, shape: (typeof keyShapes)[string]): JWK {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail('jwk header missing or not an object');
  const jwk = value as Record<string, unknown>;
  for (const name of privateMembers) {
    if (name in jwk) fail(`jwk contains private member ${name}`);
  }
  if (jwk.kty !== shape.kty || jwk.crv !== shape.crv) fail('jwk kty/crv does not match alg');
  const result: Record<string, string> = { kty: shape.kty };
  if (shape.crv) result.crv = shape.crv;
  for (const member of shape.members) {
    const text = jwk[member];
    if (typeof text !== 'string' || !/^[A-Za-z0-9_-]+$/.test(text)) fail(`jwk member ${member} missing or not base64url`);
    result[member] = text;
  }
  return result;
}

// A client proves with the same key on every request: keep the imported key (jose caches
// its conversion per key object) and the thumbprint. Invalid keys throw and are not kept.
const proofKeys = new BoundedCache<string, Promise<{ key: KeyObject; jkt: string }>>(10_000);

function proofKey(jwk: JWK): Promise<{ key: KeyObject; jkt: string }> {
  return proofKeys.get(JSON.stringify(jwk), () => {
    const key = importKey(jwk);
    return calculateJwkThumbprint(jwk, 'sha256').then((jkt) => ({ key, jkt }));
  });
}

function importKey(jwk: JWK): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch (cause) {
    fail('jwk is not a valid public key', cause);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (jwk.kty === 'RSA' && (bits === undefined || bits < 2048)) fail('RSA key shorter than 2048 bits');
  return key;
}

function checkClaims(payload: DecodedCompactJws['payload'], jkt: string, options: DpopProofOptions): VerifiedDpopProof {
  const { jti, htm, htu, iat, ath } = payload;
  const window = options.iatWindowSeconds ?? 60;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 200) fail('jti missing or not a string of 1 to 200 characters');
  if (htm !== options.method) fail('htm does not match the request method');
  const expectedHtu = normaliseHtu(options.url);
  if (typeof htu !== 'string' || expectedHtu === undefined || normaliseHtu(htu) !== expectedHtu) fail('htu does not match the request URL');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) fail('iat missing or not a number');
  if (Math.abs(iat - options.now) > window) fail(`iat outside the ±${window} s window`);
  if (options.accessToken !== undefined) {
    if (typeof ath !== 'string') fail('ath missing');
    if (ath !== computeAth(options.accessToken)) fail('ath does not match the access token');
  }
  if (options.expectedJkt !== undefined && jkt !== options.expectedJkt) fail('proof key does not match the token binding (cnf.jkt)');
  return { jkt, jti, iat };
}

function checkNonce(value: unknown, expected: DpopProofOptions['nonce']): void {
  if (expected === undefined) return;
  const ok = typeof value === 'string' && (typeof expected === 'string' ? value === expected : expected(value));
  if (!ok) throw new TokenError('use_dpop_nonce', value === undefined ? 'nonce missing' : 'nonce invalid or stale');
}

/**
 * Scheme + authority + path, normalised per RFC 3986 §6.2.2–6.2.3 (case, default port,
 * dot segments, percent-encoding); `undefined` when not an absolute http(s) URL.
 */
export function normaliseHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const path = url.pathname.replace(/%[0-9a-fA-F]{2}/g, (escape) => {
    const char = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return /^[A-Za-z0-9._~-]$/.test(char) ? char : escape.toUpperCase();
  });
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * Stateless server nonces: `<slot>.<HMAC(slot)>` where slot = floor(now / window). A nonce
 * is accepted in its own slot and the next, so it lives between one and two windows and no
 * instance needs to remember what it issued.
 */
export class DpopNonces {
  readonly #secret: Buffer;
  readonly #windowSeconds: number;

  constructor(options: { readonly secret: string | Uint8Array; readonly windowSeconds?: number }) {
    this.#secret = Buffer.from(options.secret);
    if (this.#secret.length < 32) throw new Error('DPoP nonce secret must be at least 32 bytes');
    this.#windowSeconds = options.windowSeconds ?? 300;
  }

  /** A nonce for the current slot. */
  issue(now: number): string {
    const slot = Math.floor(now / this.#windowSeconds);
    return `${slot.toString(36)}.${this.#mac(slot).toString('base64url')}`;
  }

  /** Whether `nonce` was issued by a holder of the secret in the current or previous slot. */
  isValid(nonce: string, now: number): boolean {
    const match = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
    if (!match?.[1] || !match[2]) return false;
    const slot = Number.parseInt(match[1], 36);
    const current = Math.floor(now / this.#windowSeconds);
    if (slot !== current && slot !== current - 1) return false;
    return timingSafeEqual(Buffer.from(match[2], 'base64url'), this.#mac(slot));
  }

  #mac(slot: number): Buffer {
    return createHmac('sha256', this.#secret).update(`dpop-nonce:${slot}`).digest();
  }
}
