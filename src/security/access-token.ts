/**
 * Access tokens: RFC 9068 JWTs signed with ES512. Verification caches claims by the
 * token's SHA-256 until `exp`, because a P-521 verification costs far more than a hash
 * and a client repeats the same token on every request.
 */
import { hash as oneShotHash, randomUUID } from 'node:crypto';
import { jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { CompactJwsError, decodeCompactJws, type DecodedCompactJws } from './compact-jws.js';
import { TokenError } from './oauth-error.js';
import { systemNodeId, type Level } from '../core/principal.js';
import { signEs512Jws } from './sign-es512.js';
import type { SigningKeyStore } from './signing-keys.js';

/** The claims of an access token. */
export interface AccessTokenClaims {
  readonly iss: string;
  /** The client id. */
  readonly sub: string;
  readonly client_id: string;
  readonly aud: string;
  /** Space-separated granted capabilities. */
  readonly scope: string;
  /** The client's tenant node id; `"system"` for the built-in root node. */
  readonly tenant_id: string;
  readonly level: Level;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  /** Present when DPoP-bound: the RFC 7638 thumbprint of the client's DPoP key. */
  readonly cnf?: { readonly jkt: string };
  /** `user` on an end user's token (`sub` is then the user id); absent on client tokens. */
  readonly actor_type?: 'user';
  /** How the user authenticated (RFC 8176: `otp`, `totp`, `fed`); user tokens only. */
  readonly amr?: readonly string[];
}

/** What the token endpoint decided to grant. */
export interface AccessTokenGrant {
  readonly issuer: string;
  readonly audience: string;
  readonly subject: string;
  readonly clientId: string;
  readonly scope: string;
  /** The client's node; `null` (how the root is stored) is written as `"system"`. */
  readonly tenantId: string | null;
  readonly level: Level;
  /** DPoP key thumbprint, when the token is to be DPoP-bound. */
  readonly jkt?: string;
  /** An end user's token: `subject` is the user id, `amr` how the user signed in. */
  readonly user?: { readonly amr: readonly string[] };
}

/** Signs an access token with the store's current key and signer (see sign-es512.ts). */
export async function issueAccessToken(
  store: SigningKeyStore,
  grant: AccessTokenGrant,
  now: number,
  lifetimeSeconds: number,
): Promise<{ readonly token: string; readonly claims: AccessTokenClaims; readonly expiresAt: number }> {
  const iat = Math.floor(now);
  const claims: AccessTokenClaims = freeze({
    iss: grant.issuer,
    sub: grant.subject,
    client_id: grant.clientId,
    aud: grant.audience,
    scope: grant.scope,
    tenant_id: grant.tenantId ?? systemNodeId,
    level: grant.level,
    jti: randomUUID(),
    iat,
    exp: iat + lifetimeSeconds,
    ...(grant.jkt === undefined ? {} : { cnf: { jkt: grant.jkt } }),
    ...(grant.user ? { actor_type: 'user' as const, amr: [...grant.user.amr] } : {}),
  });
  const { kid, signingKey } = store.current(now);
  const token = await signEs512Jws(claims, signingKey, { kid, typ: 'at+jwt' }, store.signer);
  return { token, claims, expiresAt: claims.exp };
}

const levels: ReadonlySet<string> = new Set<Level>(['system', 'partner', 'parent_tenant', 'tenant']);

/** What the verifier reports about its work (metrics). */
export interface VerifierObserver {
  /** A signature was checked (the costly step); `valid` is its outcome with the claims. */
  signatureChecked?(valid: boolean): void;
  /** A token refused within the last {@link AccessTokenVerifierOptions.refusedTtlSeconds} was refused again without a check. */
  refusalCached?(): void;
}

export interface AccessTokenVerifierOptions {
  readonly issuer: string;
  readonly audience: string;
  /** Verified tokens kept; default 100 000. */
  readonly cacheMaxEntries?: number;
  /** How long a token whose signature check failed is refused from memory; default 30 s. */
  readonly refusedTtlSeconds?: number;
  /** Refused tokens remembered at once (oldest dropped first); default 10 000. */
  readonly refusedMaxEntries?: number;
  readonly observer?: VerifierObserver;
}

/**
 * Verifies access tokens of one issuer/audience. Verified claims are cached until `exp`.
 * A token whose signature check failed is remembered by its SHA-256 for a short time, so
 * repeating it costs a hash and a map lookup instead of a P-521 verification; memory is
 * bounded by entry count (an entry is small: the digest and the claims, whose long strings
 * are shared with the directories). Before any signature check, the header and claims
 * are decoded strictly and checked (`alg`, `typ`, known `kid`, `iss`, `aud`, `exp`,
 * claim shapes), so a token that could not pass costs no crypto either; `jose`
 * then verifies the signature and every claim again.
 */
export class AccessTokenVerifier {
  readonly #store: SigningKeyStore;
  readonly #issuer: string;
  readonly #audience: string;
  readonly #maxEntries: number;
  // Insertion order is close to expiry order (one token lifetime), so the oldest entries
  // are both the first to expire and the ones to evict when full.
  readonly #cache = new Map<string, AccessTokenClaims>();
  // Digest -> refused until (epoch s); insertion order is expiry order (one fixed TTL).
  readonly #refused = new Map<string, number>();
  readonly #refusedTtl: number;
  readonly #refusedMax: number;
  readonly #observer: VerifierObserver;

  constructor(store: SigningKeyStore, options: AccessTokenVerifierOptions) {
    this.#store = store;
    this.#issuer = options.issuer;
    this.#audience = options.audience;
    this.#maxEntries = Math.max(1, options.cacheMaxEntries ?? 100_000);
    this.#refusedTtl = options.refusedTtlSeconds ?? 30;
    this.#refusedMax = Math.max(1, options.refusedMaxEntries ?? 10_000);
    this.#observer = options.observer ?? {};
  }

  /**
   * Seeds the cache with a token this service just issued, so it is never re-verified.
   * Ignored for another issuer or audience, which {@link verify} would refuse.
   */
  remember(token: string, claims: AccessTokenClaims, now: number = claims.iat): void {
    if (claims.iss !== this.#issuer || claims.aud !== this.#audience) return;
    this.#put(hash(token), freeze(claims), now);
  }

  /**
   * The claims of a token this instance already verified (or issued) and that has not
   * expired; `undefined` for any other token, which then goes through {@link verify}.
   */
  verified(token: string, now: number): AccessTokenClaims | undefined {
    if (token.length === 0 || token.length > 8192) return undefined;
    const cached = this.#cache.get(hash(token));
    return cached !== undefined && cached.exp > now ? cached : undefined;
  }

  /**
   * The token's claims; throws `invalid_token` {@link TokenError} otherwise. `beforeCheck`
   * runs only when the token is not one this instance already verified, before anything
   * else is done with it (the pre-authentication limit).
   */
  async verify(token: string, now: number, beforeCheck?: () => Promise<void>): Promise<AccessTokenClaims> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) {
      await beforeCheck?.();
      throw new TokenError('invalid_token', 'token missing or too long');
    }
    const digest = hash(token);
    const cached = this.#cache.get(digest);
    if (cached) {
      if (cached.exp > now) return cached;
      this.#cache.delete(digest);
      throw new TokenError('invalid_token', 'token expired');
    }
    await beforeCheck?.();
    const refusedUntil = this.#refused.get(digest);
    if (refusedUntil !== undefined) {
      if (refusedUntil > now) {
        this.#observer.refusalCached?.();
        throw new TokenError('invalid_token', 'refused earlier (signature or claims check failed)');
      }
      this.#refused.delete(digest);
    }
    const key = this.#precheck(token, now);
    let claims: AccessTokenClaims;
    try {
      claims = await this.#verifySignature(token, key, now);
    } catch (error) {
      this.#observer.signatureChecked?.(false);
      this.#refuse(digest, now);
      throw error;
    }
    this.#observer.signatureChecked?.(true);
    this.#put(digest, claims, now);
    return claims;
  }

  /** Everything that can be checked without crypto; returns the verification key. */
  #precheck(token: string, now: number): CryptoKey {
    let decoded: DecodedCompactJws;
    try {
      decoded = decodeCompactJws(token, 8192);
    } catch (cause) {
      throw new TokenError('invalid_token', `malformed token${cause instanceof CompactJwsError ? `: ${cause.reason}` : ''}`, { cause });
    }
    const { alg, typ, kid } = decoded.header;
    if (alg !== 'ES512') throw new TokenError('invalid_token', `alg ${JSON.stringify(alg)?.slice(0, 20)} is not ES512`);
    if (typ !== 'at+jwt') throw new TokenError('invalid_token', 'typ is not at+jwt');
    const key = typeof kid === 'string' ? this.#store.verificationKey(kid) : undefined;
    if (!key) throw new TokenError('invalid_token', 'unknown or missing kid');
    const claims = toClaims(decoded.payload);
    if (claims.iss !== this.#issuer) throw new TokenError('invalid_token', 'iss is not this issuer');
    if (claims.aud !== this.#audience) throw new TokenError('invalid_token', 'aud is not this API');
    if (claims.exp <= now) throw new TokenError('invalid_token', 'token expired');
    return key;
  }

  async #verifySignature(token: string, key: CryptoKey, now: number): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['ES512'],
        typ: 'at+jwt',
        issuer: this.#issuer,
        audience: this.#audience,
        currentDate: new Date(now * 1000),
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      }));
    } catch (cause) {
      const code = (cause as { code?: unknown }).code;
      throw new TokenError('invalid_token', `verification failed: ${typeof code === 'string' ? code : 'error'}`, { cause });
    }
    return toClaims(payload);
  }

  #put(digest: string, claims: AccessTokenClaims, now: number): void {
    for (const [key, entry] of this.#cache) {
      if (entry.exp > now && this.#cache.size < this.#maxEntries) break;
      this.#cache.delete(key);
    }
    this.#cache.set(digest, claims);
  }

  #refuse(digest: string, now: number): void {
    for (const [key, until] of this.#refused) {
      if (until > now && this.#refused.size < this.#refusedMax) break;
      this.#refused.delete(key);
    }
    this.#refused.set(digest, now + this.#refusedTtl);
  }
}

// One-shot hashing (no Hash object per call): it runs on every authenticated request.
function hash(token: string): string {
  return oneShotHash('sha256', token, 'base64url');
}

/** Picks and shape-checks the known claims; anything else in the payload is dropped. */
function toClaims(payload: Readonly<Record<string, unknown>>): AccessTokenClaims {
  const { iss, sub, client_id, aud, scope, tenant_id, level, jti, iat, exp, cnf, actor_type, amr } = payload as Record<string, unknown>;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  if (
    typeof iss !== 'string' ||
    typeof sub !== 'string' ||
    typeof client_id !== 'string' ||
    typeof aud !== 'string' ||
    typeof scope !== 'string' ||
    typeof jti !== 'string' ||
    (tenant_id !== null && typeof tenant_id !== 'string') ||
    typeof level !== 'string' ||
    !levels.has(level) ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    (cnf !== undefined && typeof jkt !== 'string') ||
    (actor_type !== undefined && actor_type !== 'user') ||
    (actor_type === 'user' && (!Array.isArray(amr) || !amr.every((m) => typeof m === 'string')))
  ) {
    throw new TokenError('invalid_token', 'claims have the wrong shape');
  }
  // `null` is what tokens of system clients carried before the claim became "system"; they
  // stay valid until they expire (one token lifetime after an upgrade).
  const base = {
    iss,
    sub,
    client_id,
    aud,
    scope,
    tenant_id: tenant_id ?? systemNodeId,
    level: level as Level,
    jti,
    iat,
    exp,
    ...(actor_type === 'user' ? { actor_type: 'user' as const, amr: Object.freeze([...(amr as string[])]) } : {}),
  };
  return freeze(typeof jkt === 'string' ? { ...base, cnf: { jkt } } : base);
}

function freeze(claims: AccessTokenClaims): AccessTokenClaims {
  return Object.freeze({ ...claims, ...(claims.cnf ? { cnf: Object.freeze({ jkt: claims.cnf.jkt }) } : {}) });
}
