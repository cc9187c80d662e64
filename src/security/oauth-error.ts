/**
 * Errors of the OAuth side of the service. Clients only ever see the generic
 * `description` of a code; the precise `privateReason` (which rule failed, which kid was
 * unknown, ...) goes to logs and the audit trail, because telling an attacker exactly which
 * check refused a forged assertion helps them forge the next one.
 */

/** Error codes of the token endpoint (RFC 6749 §5.2, RFC 9449 §5 and §8, plus rate limiting). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'rate_limited'
  | 'temporarily_unavailable'
  | 'server_error';

const catalogue: Readonly<Record<OAuthErrorCode, { readonly status: number; readonly description: string }>> = {
  invalid_request: { status: 400, description: 'The request is missing a required parameter or is otherwise malformed.' },
  invalid_client: { status: 401, description: 'Client authentication failed.' },
  invalid_grant: { status: 400, description: 'The authorization grant is invalid.' },
  unsupported_grant_type: { status: 400, description: 'The authorization grant type is not supported.' },
  invalid_scope: { status: 400, description: 'The requested scope is invalid, unknown or not allowed for this client.' },
  invalid_dpop_proof: { status: 400, description: 'The DPoP proof is invalid.' },
  use_dpop_nonce: { status: 400, description: 'Authorization server requires nonce in DPoP proof.' },
  // Not an RFC 6749 code (none fits); the same name as the API's own 429 problem code.
  rate_limited: { status: 429, description: 'Too many requests; retry after the number of seconds in Retry-After.' },
  // RFC 6749 §4.1.2.1's code for an overloaded or unreachable dependency (the database).
  temporarily_unavailable: { status: 503, description: 'The server is temporarily unable to handle the request; retry after the number of seconds in Retry-After.' },
  // RFC 6749 only needs server_error because redirects cannot carry a 500; the token
  // endpoint answers JSON directly, so the honest status is usable.
  server_error: { status: 500, description: 'The server encountered an unexpected condition.' },
};

/** A token-endpoint failure, rendered as `{ error, error_description }`. */
export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  /** HTTP status: 401 for `invalid_client`, 429 for `rate_limited`, 500 for `server_error`, otherwise 400. */
  readonly status: number;
  /** Generic text safe to send to the client. */
  readonly description: string;
  /** The precise reason, for logs and audit only; never sent to the client. */
  readonly privateReason: string;
  /** Response headers the error needs, such as `DPoP-Nonce` with `use_dpop_nonce`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(error: OAuthErrorCode, privateReason: string, options?: { readonly cause?: unknown; readonly headers?: Readonly<Record<string, string>> }) {
    super(`${error}: ${privateReason}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OAuthError';
    this.error = error;
    this.status = catalogue[error].status;
    this.description = catalogue[error].description;
    this.privateReason = privateReason;
    this.headers = Object.freeze({ ...options?.headers });
  }

  /** The RFC 6749 §5.2 response body. */
  toBody(): { readonly error: OAuthErrorCode; readonly error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/** Resource-server error codes (RFC 6750 §3.1, RFC 9449 §7.1 and §9). */
export type TokenErrorCode = 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';

/**
 * A refused access token or DPoP proof at a protected route (answered 401 with a
 * `WWW-Authenticate` challenge). Also thrown by `verifyDpopProof`; the token endpoint maps
 * it to an {@link OAuthError} with the same code.
 */
export class TokenError extends Error {
  readonly code: TokenErrorCode;
  /** The precise reason, for logs only. */
  readonly privateReason: string;

  constructor(code: TokenErrorCode, privateReason: string, options?: { readonly cause?: unknown }) {
    super(`${code}: ${privateReason}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TokenError';
    this.code = code;
    this.privateReason = privateReason;
  }
}

/** The private reason of a refusal, for logs: a {@link TokenError}'s own, else the error's message. */
export function reasonOf(error: unknown): string {
  if (error instanceof TokenError) return error.privateReason;
  return error instanceof Error ? error.message : 'unknown';
}
