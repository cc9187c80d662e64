import { SignJWT } from 'jose';
import type { ClientKey } from './client-key.js';
import type { Clock } from './clock.js';
import type { DpopSigner } from './dpop-signer.js';
import { BookingClientError, TokenRequestError } from './errors.js';
import type { TokenResponse } from './generated/api.js';
import type { RetryPolicy } from './retry-policy.js';
import { fetchOrFail } from './retry-policy.js';

/** An access token and when this client stops using it. */
export interface AccessToken {
  readonly value: string;
  readonly type: 'Bearer' | 'DPoP';
  readonly scope: string;
  /** Epoch ms of `expires_in`, by the client's clock. */
  readonly expiresAt: number;
  /** Epoch ms when it was issued, by the client's clock. */
  readonly issuedAt: number;
}

export interface TokenProviderOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly key: () => Promise<ClientKey>;
  readonly scope?: string;
  readonly dpop?: DpopSigner;
  readonly fetch: typeof fetch;
  readonly clock: Clock;
  readonly retry: RetryPolicy;
}

/** Tokens are replaced this long before they expire (docs/authentication.md recommends 60 s). */
export const REFRESH_MARGIN_MS = 60_000;

const assertionType = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * Client-credentials tokens with `private_key_jwt` (RFC 7523). A token is reused until
 * 60 s before it expires (half its lifetime for tokens shorter than two minutes); however
 * many requests need one at the same moment, a single token request is in flight.
 */
export class TokenProvider {
  readonly #options: TokenProviderOptions;
  #current: AccessToken | undefined;
  #pending: Promise<AccessToken> | undefined;

  constructor(options: TokenProviderOptions) {
    this.#options = options;
  }

  /** A token that is still fresh, fetching one when needed. */
  get(): Promise<AccessToken> {
    const current = this.#current;
    if (current && this.#fresh(current)) return Promise.resolve(current);
    this.#pending ??= this.#request().then(
      (token) => {
        this.#current = token;
        this.#pending = undefined;
        return token;
      },
      (error: unknown) => {
        this.#pending = undefined;
        throw error;
      },
    );
    return this.#pending;
  }

  /** Forgets `token` (the API refused it), so the next {@link get} fetches a new one. */
  invalidate(token: AccessToken): void {
    if (this.#current === token) this.#current = undefined;
  }

  #fresh(token: AccessToken): boolean {
    const margin = Math.min(REFRESH_MARGIN_MS, (token.expiresAt - token.issuedAt) / 2);
    return this.#options.clock.now() < token.expiresAt - margin;
  }

  async #assertion(): Promise<string> {
    const { clientId, tokenUrl, clock } = this.#options;
    const { key, alg, kid } = await this.#options.key();
    const now = Math.floor(clock.now() / 1000);
    return new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(tokenUrl)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
  }

  async #request(): Promise<AccessToken> {
    const { tokenUrl, clientId, scope, dpop, retry, clock } = this.#options;
    let nonceRetried = false;
    // Each attempt signs a new assertion (its jti is single-use) and a new proof. Repeating
    // a token request is harmless, so network failures are retried like idempotent calls.
    const response = await retry.send(
      async () => {
        const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_assertion_type: assertionType, client_assertion: await this.#assertion() });
        if (scope) form.set('scope', scope);
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
        if (dpop) headers.dpop = await dpop.proof({ method: 'POST', url: tokenUrl });
        return fetchOrFail(this.#options.fetch, tokenUrl, { method: 'POST', headers, body: form.toString() });
      },
      {
        idempotent: true,
        what: `POST ${tokenUrl}`,
        challenge: (res) => {
          dpop?.rememberNonce(res.headers.get('dpop-nonce'));
          // RFC 9449 §8: the server wants its nonce in the proof; one more try with it.
          if (dpop && !nonceRetried && res.status === 400 && res.headers.has('dpop-nonce')) {
            nonceRetried = true;
            return true;
          }
          return false;
        },
      },
    );
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a proxy's error page): reported with the status below.
    }
    // An answer that is not the token endpoint's (a wrong URL, another program on the port)
    // names what was asked and what came back, so the caller can tell which setting is off.
    const answered = `POST ${tokenUrl} answered HTTP ${response.status} (${response.headers.get('content-type') ?? 'no content type'})`;
    if (!response.ok) {
      const excerpt = text.slice(0, 200);
      if (typeof body.error === 'string') throw new TokenRequestError(response.status, body.error, typeof body.error_description === 'string' ? body.error_description : excerpt || undefined);
      throw new TokenRequestError(response.status, `http_${response.status}`, excerpt ? `${answered}: ${excerpt}` : answered);
    }
    const token = body as Partial<TokenResponse>;
    if (typeof token.access_token !== 'string' || typeof token.expires_in !== 'number') throw new BookingClientError(`${answered} without access_token/expires_in`);
    const issuedAt = clock.now();
    return {
      value: token.access_token,
      type: token.token_type === 'DPoP' ? 'DPoP' : 'Bearer',
      scope: typeof token.scope === 'string' ? token.scope : '',
      issuedAt,
      expiresAt: issuedAt + token.expires_in * 1000,
    };
  }
}
