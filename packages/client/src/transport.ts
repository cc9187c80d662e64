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

/** One query-parameter value; numbers and booleans are sent as their text. */
export type QueryValue = string | number | boolean;

/** A query: `URLSearchParams`, or a plain object whose arrays repeat the parameter (`{ a: ['1', '2'] }` → `a=1&a=2`). */
export type ApiQuery = URLSearchParams | Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;

/** Per-call options of the resource methods that write or read one tenant's records. */
export interface CallOptions {
  /**
   * Tenant node to act in (`X-Tenant-Id`), for system-level clients; overrides the client's
   * `tenantId`. Other clients act in their own node and get 403 `tenant_forbidden`.
   */
  readonly tenantId?: string;
}

/** Options of a `create` (POST). */
export interface CreateOptions extends CallOptions {
  /**
   * `Idempotency-Key`: the service applies the first request with this key once and answers a
   * repeat with the same body with the stored answer (`replayed: true`), so a POST whose
   * connection failed is retried safely (the client then retries it like a GET), and one
   * answered 409 `idempotency_key_in_use` (the first is still running) is repeated after `Retry-After`.
   */
  readonly idempotencyKey?: string;
}

/** One API call. */
export interface ApiRequest extends CreateOptions {
  readonly method: string;
  /** Path below the API base, e.g. `/products/…`. */
  readonly path: string;
  readonly query?: ApiQuery;
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
  /** Default `X-Tenant-Id` of every call. */
  readonly tenantId?: string;
}

function isQueryValue(value: unknown): value is QueryValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The query string of `query` (without `?`); a value that is not a query is a `TypeError`, not `?[object Object]`. */
export function queryString(query: unknown): string {
  if (query === undefined) return '';
  if (query instanceof URLSearchParams) return query.toString();
  const proto: unknown = query !== null && typeof query === 'object' ? Object.getPrototypeOf(query) : undefined;
  if (proto !== Object.prototype && proto !== null) throw new TypeError('query must be a URLSearchParams or a plain object of strings (or arrays of strings)');
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    const values: readonly unknown[] = Array.isArray(value) ? value : value === undefined ? [] : [value];
    for (const one of values) {
      if (!isQueryValue(one)) throw new TypeError(`query parameter "${name}" must be a string, number or boolean, or an array of them`);
      params.append(name, String(one));
    }
  }
  return params.toString();
}

/** The request's headers, names in lower case: defaults, then `headers`, then the named options. */
function callHeaders(request: ApiRequest, options: TransportOptions): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
  if (options.tenantId !== undefined) headers['x-tenant-id'] = options.tenantId;
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  if (request.tenantId !== undefined) headers['x-tenant-id'] = request.tenantId;
  if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
  return headers;
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
    const query = queryString(request.query);
    const url = `${apiBase}${request.path}${query ? `?${query}` : ''}`;
    const method = request.method.toUpperCase();
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const requestHeaders = callHeaders(request, this.#options);
    let token: AccessToken | undefined;
    let nonceRetried = false;
    let tokenRetried = false;
    const response = await retry.send(
      async () => {
        token = await tokens.get();
        const headers: Record<string, string> = { ...requestHeaders, authorization: `${token.type} ${token.value}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (token.type === 'DPoP') {
          if (!dpop) throw new TypeError('the token is DPoP-bound but the client has no DPoP key');
          headers.dpop = await dpop.proof({ method, url, accessToken: token.value });
        }
        return fetchOrFail(this.#options.fetch, url, { method, headers, ...(body === undefined ? {} : { body }) });
      },
      {
        // A POST with an Idempotency-Key may be repeated: the service applies it at most once.
        idempotent: isIdempotent(method) || requestHeaders['idempotency-key'] !== undefined,
        // While the first request with the key still runs, the service answers 409 `idempotency_key_in_use`.
        keyed: requestHeaders['idempotency-key'] !== undefined,
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
