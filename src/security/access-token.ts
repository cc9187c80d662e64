/**
 * Access tokens: RFC 9068 JWTs signed with ES512. Verification caches claims by the
 * token's SHA-256 until `exp`, because a P-521 verification costs about half a
 * millisecond and a client repeats the same token on every request.
 */
import { createHash, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { TokenError } from './oauth-error.js';
import { systemNodeId, type Level } from './principal.js';
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
}

/** Signs an access token with the store's current key (node:crypto; see sign-es512.ts). */
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
  });
  const { kid, signingKey } = store.current(now);
  const token = await signEs512Jws(claims, signingKey, { kid, typ: 'at+jwt' });
  return { token, claims, expiresAt: claims.exp };
}

const levels: ReadonlySet<string> = new Set<Level>(['system', 'partner', 'parent_tenant', 'tenant']);

/** Verifies access tokens of one issuer/audience, with a bounded claims cache. */
export class AccessTokenVerifier {
  readonly #store: SigningKeyStore;
  readonly #issuer: string;
  readonly #audience: string;
  readonly #maxEntries: number;
  // Insertion order is close to expiry order (one token lifetime), so the oldest entries
  // are both the first to expire and the ones to evict when full.
  readonly #cache = new Map<string, AccessTokenClaims>();

  constructor(store: SigningKeyStore, options: { readonly issuer: string; readonly audience: string; readonly cacheMaxEntries?: number }) {
    this.#store = store;
    this.#issuer = options.issuer;
    this.#audience = options.audience;
    this.#maxEntries = Math.max(1, options.cacheMaxEntries ?? 100_000);
  }

  /**
   * Seeds the cache with a token this service just issued, so it is never re-verified.
   * Ignored for another issuer or audience, which {@link verify} would refuse.
   */
  remember(token: string, claims: AccessTokenClaims, now: number = claims.iat): void {
    if (claims.iss !== this.#issuer || claims.aud !== this.#audience) return;
    this.#put(hash(token), freeze(claims), now);
  }

  /** The token's claims; throws `invalid_token` {@link TokenError} otherwise. */
  async verify(token: string, now: number): Promise<AccessTokenClaims> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 8192) throw new TokenError('invalid_token', 'token missing or too long');
    const digest = hash(token);
    const cached = this.#cache.get(digest);
    if (cached) {
      if (cached.exp > now) return cached;
      this.#cache.delete(digest);
      throw new TokenError('invalid_token', 'token expired');
    }
    const claims = await this.#verifySignature(token, now);
    this.#put(digest, claims, now);
    return claims;
  }

  async #verifySignature(token: string, now: number): Promise<AccessTokenClaims> {
    let kid: unknown;
    try {
      ({ kid } = decodeProtectedHeader(token));
    } catch (cause) {
      throw new TokenError('invalid_token', 'malformed token', { cause });
    }
    const key = typeof kid === 'string' ? this.#store.verificationKey(kid) : undefined;
    if (!key) throw new TokenError('invalid_token', 'unknown or missing kid');
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
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Picks and shape-checks the known claims; anything else in the payload is dropped. */
function toClaims(payload: JWTPayload): AccessTokenClaims {
  const { iss, sub, client_id, aud, scope, tenant_id, level, jti, iat, exp, cnf } = payload as Record<string, unknown>;
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
    (cnf !== undefined && typeof jkt !== 'string')
  ) {
    throw new TokenError('invalid_token', 'claims have the wrong shape');
  }
  // `null` is what tokens of system clients carried before the claim became "system"; they
  // stay valid until they expire (one token lifetime after an upgrade).
  const base = { iss, sub, client_id, aud, scope, tenant_id: tenant_id ?? systemNodeId, level: level as Level, jti, iat, exp };
  return freeze(typeof jkt === 'string' ? { ...base, cnf: { jkt } } : base);
}

function freeze(claims: AccessTokenClaims): AccessTokenClaims {
  return Object.freeze({ ...claims, ...(claims.cnf ? { cnf: Object.freeze({ jkt: claims.cnf.jkt }) } : {}) });
}
