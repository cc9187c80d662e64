/**
 * The closed set of errors the API can answer with. Each has a stable `code`, an HTTP
 * status and a public title; `detail` is safe to show; `cause` and `privateReason` go to
 * logs only. Clients see them as RFC 9457 problem documents (see `problem.ts`).
 */

export interface FieldError {
  /** Field path (`where.$or[0].city`, `body.amount`, `sort`). */
  readonly field: string;
  readonly message: string;
}

export type ErrorCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'malformed_request'
  | 'request_timeout'
  | 'headers_too_large'
  | 'unauthenticated'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'mfa_required'
  | 'invalid_grant'
  | 'daily_limit_reached'
  | 'ip_not_allowed'
  | 'tenant_forbidden'
  | 'field_forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'cascade_conflict'
  | 'conflict'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'event_id_reused'
  | 'legal_hold'
  | 'capacity_exceeded'
  | 'product_unavailable'
  | 'invalid_transition'
  | 'managed_by_order'
  | 'managed_by_calendar'
  | 'not_for_sale'
  | 'stay_restricted'
  | 'rate_overlap'
  | 'currency_mismatch'
  | 'invalid_quote'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'precondition_required'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

const catalogue: Record<ErrorCode, { status: number; title: string }> = {
  validation_failed: { status: 400, title: 'The request is invalid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  malformed_request: { status: 400, title: 'The request is not valid HTTP' },
  request_timeout: { status: 408, title: 'The request was not received in time' },
  headers_too_large: { status: 431, title: 'The request headers are too large' },
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'The access token is invalid' },
  insufficient_scope: { status: 403, title: 'The access token lacks a required capability' },
  mfa_required: { status: 401, title: 'This operation needs a sign-in with a second factor (TOTP)' },
  invalid_grant: { status: 400, title: 'The code is wrong, expired, used or unknown' },
  daily_limit_reached: { status: 429, title: 'The daily limit of sign-in messages is reached' },
  ip_not_allowed: { status: 403, title: 'The source address is not allowed' },
  tenant_forbidden: { status: 403, title: 'Acting in another tenant requires system level' },
  field_forbidden: { status: 403, title: 'A field requires a capability the caller lacks' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  cascade_conflict: { status: 409, title: 'The record still has related child records' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  idempotency_key_reused: { status: 422, title: 'This Idempotency-Key was used with a different request body' },
  event_id_reused: { status: 422, title: 'This event id was received before with a different body' },
  legal_hold: { status: 409, title: 'The record is under a legal hold' },
  capacity_exceeded: { status: 409, title: 'Not enough units of the product are free for this booking' },
  product_unavailable: { status: 409, title: 'The product takes no new bookings' },
  invalid_transition: { status: 409, title: 'The record cannot change to this status' },
  managed_by_order: { status: 409, title: 'The booking belongs to an order and changes only through it' },
  managed_by_calendar: { status: 409, title: 'The booking is a block of a calendar import and changes only through its feed' },
  not_for_sale: { status: 409, title: 'The product has no price: it cannot be quoted or ordered' },
  stay_restricted: { status: 409, title: "The product's rates do not allow this stay" },
  rate_overlap: { status: 409, title: 'Another rate of the product covers some of these dates' },
  currency_mismatch: { status: 409, title: "The currency differs from the product's" },
  invalid_quote: { status: 400, title: 'The quote is expired or not valid here' },
  precondition_failed: { status: 412, title: 'The ETag does not match the current record' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  precondition_required: { status: 428, title: 'If-Match is required' },
  rate_limited: { status: 429, title: 'Too many requests' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  internal_error: { status: 500, title: 'Internal server error' },
};

export interface ApiErrorOptions {
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra members of the problem document (e.g. `blocking_resources`). */
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** Logged, never shown. */
  readonly privateReason?: string;
  readonly cause?: unknown;
  /**
   * The capabilities a 403 lacked, refused past the security pipeline (a field's write
   * capability, one to grant): the error handler names them in `WWW-Authenticate` with
   * `error="insufficient_scope"`, as the pipeline does for a route's capability.
   */
  readonly missingCapabilities?: readonly string[];
}

/** An error with a known public shape. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly privateReason: string | undefined;
  readonly missingCapabilities: readonly string[] | undefined;

  constructor(code: ErrorCode, detail?: string, options: ApiErrorOptions = {}) {
    const entry = catalogue[code];
    super(detail ?? entry.title, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
    this.privateReason = options.privateReason;
    this.missingCapabilities = options.missingCapabilities;
  }
}

/** `error` with `headers` added to its own (a refusal that also reports a rate limit's state). */
export function withHeaders(error: ApiError, headers: Readonly<Record<string, string>>): ApiError {
  if (Object.keys(headers).length === 0) return error;
  return new ApiError(error.code, error.message, {
    ...(error.errors ? { errors: error.errors } : {}),
    headers: { ...error.headers, ...headers },
    extensions: error.extensions,
    ...(error.privateReason !== undefined ? { privateReason: error.privateReason } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
    ...(error.missingCapabilities !== undefined ? { missingCapabilities: error.missingCapabilities } : {}),
  });
}

/** A 400 listing what is wrong with which field. */
export function validationError(errors: readonly FieldError[], detail?: string): ApiError {
  return new ApiError('validation_failed', detail ?? errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
}

export function notFound(resource?: string): ApiError {
  return new ApiError('not_found', resource ? `No such ${resource} record` : 'The requested resource does not exist');
}
