/**
 * DPoP (RFC 9449): the one place a proof is judged, at the token endpoint and at every
 * protected route. {@link verifyDpopProof} checks a proof against its request (signature
 * with jose, `typ`, `alg`, key, `htm`, `htu`, `iat`, `ath`, nonce); {@link DpopVerifier}
 * adds the token binding (`cnf.jkt`), claims the `jti` in the replay store and words every
 * refusal for the endpoint that asked: an OAuth error at the token endpoint, a 401 with a
 * `DPoP` challenge at the API, both with a fresh `DPoP-Nonce` when a nonce is wanted.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, type JWK } from 'jose';
import { BoundedCache } from '../lib/bounded-cache.js';
import { authError } from './challenge.js';
import { CompactJwsError, decodeCompactJws, type DecodedCompactJws } from './compact-jws.js';
import type { DpopNonces } from './dpop-nonces.js';
import { OAuthError, reasonOf, TokenError } from './oauth-error.js';
import type { ReplayStore } from './replay-store.js';
import { dpopKeyShapes } from '../core/dpop-algorithms.js';

const keyShapes = dpopKeyShapes;
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
  /** A required server nonce: the exact value, or a predicate such as `DpopNonces.isValid`. */
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

export interface DpopVerifierOptions {
  /** Where proofs' `jti`s are claimed, shared by every instance. */
  readonly replay: ReplayStore;
  /** Origin the client addressed (`PUBLIC_URL`): a protected request's `htu`. */
  readonly origin: string;
  /** The token endpoint URL: a token request's `htu`. */
  readonly tokenEndpoint: string;
  /** Allowed distance of `iat` from now, either way; a `jti` is kept for twice that. */
  readonly clockSkewSeconds: number;
  /** Server nonces, when every proof must carry one (`DPOP_NONCE`). */
  readonly nonces?: DpopNonces;
}

/** A protected request presenting a DPoP-bound access token. */
export interface DpopBoundRequest {
  readonly method: string;
  /** Path and query as received; `htu` is compared without the query. */
  readonly url: string;
  /** The `DPoP` header as received (several headers arrive as an array: no proof). */
  readonly proof: string | readonly string[] | undefined;
  readonly accessToken: string;
  /** The token's `cnf.jkt`. */
  readonly jkt: string;
}

/**
 * The DPoP verifier of the token endpoint and the API: one proof check, one replay claim
 * (`jkt + jti`, until the proof's `iat` window has passed), one wording of each refusal.
 */
export class DpopVerifier {
  constructor(private readonly options: DpopVerifierOptions) {}

  /**
   * A token request's proof (RFC 9449 §5), checked but not yet claimed: the token endpoint
   * claims it with {@link claimTokenRequestProof} once every other check passed, so a
   * refused request does not use the proof up. Refusals are {@link OAuthError}s.
   */
  async checkTokenRequestProof(proof: string, now: number): Promise<VerifiedDpopProof> {
    try {
      return await this.#verify(proof, 'POST', this.options.tokenEndpoint, undefined, now);
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      // RFC 9449 §8: the refusal carries the nonce to retry with.
      if (error.code === 'use_dpop_nonce') throw new OAuthError('use_dpop_nonce', error.privateReason, { headers: this.#nonceHeader(now) });
      throw new OAuthError('invalid_dpop_proof', error.privateReason);
    }
  }

  /** Claims a checked token-request proof; a proof used before is `invalid_dpop_proof`. */
  async claimTokenRequestProof(proof: VerifiedDpopProof, now: number): Promise<void> {
    if (!(await this.#claim(proof, now))) throw new OAuthError('invalid_dpop_proof', 'dpop proof jti replayed');
  }

  /**
   * A protected request's proof (RFC 9449 §7): valid for this method, URL and token, made
   * with the key the token is bound to, and never seen before. Refusals are 401 problems
   * with a `DPoP` challenge: `invalid_dpop_proof` for the proof, `invalid_token` when the
   * proof is good but the token is not bound to its key, `use_dpop_nonce` (RFC 9449 §9).
   */
  async verifyBoundRequest(request: DpopBoundRequest, now: number): Promise<void> {
    const { proof } = request;
    if (typeof proof !== 'string') throw authError('invalid_token', 'A DPoP proof is required with a DPoP-bound token', 'DPoP', 'invalid_dpop_proof');
    let verified: VerifiedDpopProof;
    try {
      verified = await this.#verify(proof, request.method, `${this.options.origin}${request.url}`, request.accessToken, now);
    } catch (error) {
      if (error instanceof TokenError && error.code === 'use_dpop_nonce') {
        throw authError('invalid_token', 'Retry with the nonce from the DPoP-Nonce header', 'DPoP', 'use_dpop_nonce', { headers: this.#nonceHeader(now) });
      }
      throw authError('invalid_token', 'The DPoP proof is invalid', 'DPoP', 'invalid_dpop_proof', { privateReason: reasonOf(error) });
    }
    // A valid proof by another key: the token is presented by someone it is not bound to,
    // which RFC 9449 §7.1 (and the contract's "wrongly bound") answers with invalid_token.
    if (verified.jkt !== request.jkt)
      throw authError('invalid_token', 'The DPoP proof key is not the key this token is bound to', 'DPoP', 'invalid_token', { privateReason: 'proof key does not match cnf.jkt' });
    if (!(await this.#claim(verified, now))) throw authError('invalid_token', 'The DPoP proof was already used', 'DPoP', 'invalid_dpop_proof', { privateReason: 'dpop proof jti replayed' });
  }

  #verify(proof: string, method: string, url: string, accessToken: string | undefined, now: number): Promise<VerifiedDpopProof> {
    const { nonces } = this.options;
    return verifyDpopProof(proof, {
      method,
      url,
      now,
      iatWindowSeconds: this.options.clockSkewSeconds,
      ...(accessToken === undefined ? {} : { accessToken }),
      ...(nonces ? { nonce: (n: string) => nonces.isValid(n, now) } : {}),
    });
  }

  // Kept past the last instant the proof's `iat` is accepted (±skew around it), so a replay is always seen.
  #claim(proof: VerifiedDpopProof, now: number): Promise<boolean> {
    return this.options.replay.claim('dpop', `${proof.jkt}:${proof.jti}`, proof.iat + 2 * this.options.clockSkewSeconds + 1, now);
  }

  #nonceHeader(now: number): Record<string, string> {
    // Only asked for when nonces are on: verifyDpopProof requires none otherwise.
    return this.options.nonces ? { 'dpop-nonce': this.options.nonces.issue(now) } : {};
  }
}
