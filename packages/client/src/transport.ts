import type { DpopSigner } from './dpop-signer.js';
import { problemError } from './errors.js';
import type { RetryPolicy } from './retry-policy.js';
import { fetchOrFail, isIdempotent } from './retry-policy.js';
import type { AccessToken, TokenProvider } from './token-provider.js';

/** A successful answer: status, headers and the body (parsed JSON, text otherwise, `undefined` when empty). */
export interface ApiResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** One API call. */
export interface ApiRequest {
  readonly method: string;
  /** Path below the API base, e.g. `/products/…`. */
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface TransportOptions {
  readonly apiBase: string;
  readonly fetch: typeof fetch;
  readonly tokens: TokenProvider;
  readonly dpop?: DpopSigner;
  readonly retry: RetryPolicy;
  readonly userAgent: string;
}

/** `error="…"` of a `WWW-Authenticate` challenge. */
function challengeError(response: Response): string | undefined {
  return /error="([^"]*)"/.exec(response.headers.get('www-authenticate') ?? '')?.[1];
}

/**
 * Authenticated JSON requests: a token (and a fresh DPoP proof) on every attempt, one
 * repeat after a nonce challenge or a refused token, retries by the {@link RetryPolicy},
 * and problem answers thrown as typed errors.
 */
export class Transport {
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  async request<T>(request: ApiRequest): Promise<ApiResponse<T>> {
    const { apiBase, tokens, dpop, retry } = this.#options;
    const query = request.query?.toString();
    const url = `${apiBase}${request.path}${query ? `?${query}` : ''}`;
    const method = request.method.toUpperCase();
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    let token: AccessToken | undefined;
    let nonceRetried = false;
    let tokenRetried = false;
    const response = await retry.send(
      async () => {
        token = await tokens.get();
        const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#options.userAgent, ...request.headers, authorization: `${token.type} ${token.value}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (token.type === 'DPoP') {
          if (!dpop) throw new TypeError('the token is DPoP-bound but the client has no DPoP key');
          headers.dpop = await dpop.proof({ method, url, accessToken: token.value });
        }
        return fetchOrFail(this.#options.fetch, url, { method, headers, ...(body === undefined ? {} : { body }) });
      },
      {
        idempotent: isIdempotent(method),
        what: `${method} ${url}`,
        challenge: (res) => {
          dpop?.rememberNonce(res.headers.get('dpop-nonce'));
          if (res.status !== 401) return false;
          const error = challengeError(res);
          if (error === 'use_dpop_nonce' && dpop && !nonceRetried) return (nonceRetried = true);
          // A token the service no longer accepts (keys rotated, client key changed): one new token.
          if (error === 'invalid_token' && token && !tokenRetried) {
            tokens.invalidate(token);
            return (tokenRetried = true);
          }
          return false;
        },
      },
    );
    const text = await response.text();
    if (!response.ok) {
      let problem: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(text);
        problem = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { detail: text };
      } catch {
        problem = { title: response.statusText, detail: text.slice(0, 200) || response.statusText };
      }
      throw problemError(response.status, problem, response.headers, retry.retryAfterSeconds(response.headers));
    }
    // JSON answers parsed; others (NDJSON or CSV exports) handed over as text.
    const json = /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '');
    return { status: response.status, headers: response.headers, body: (text === '' ? undefined : json ? JSON.parse(text) : text) as T };
  }
}
