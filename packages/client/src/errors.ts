import type { Problem } from './generated/api.js';

/** A `code` the service documents, or one added after this client was generated. */
export type ProblemCode = Problem['code'] | (string & {});

/** One entry of a validation problem's `errors`. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/** Base class of every error this client throws. */
export class BookingClientError extends Error {
  override readonly name: string = 'BookingClientError';
}

/**
 * An RFC 9457 problem answer of the API. `code` is the service's stable machine-readable
 * code; `errors` lists field problems of a validation failure. Subclasses by status let
 * callers `catch` with `instanceof`.
 */
export class ProblemError extends BookingClientError {
  override readonly name: string = 'ProblemError';
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly instance: string;
  readonly errors: readonly FieldProblem[];
  /** The problem document as received (extension members included). */
  readonly problem: Readonly<Record<string, unknown>>;
  /** The response headers (`WWW-Authenticate`, `Retry-After`, `Allow`, …). */
  readonly headers: Headers;

  constructor(status: number, problem: Record<string, unknown>, headers: Headers) {
    const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
    const detail = text(problem.detail, text(problem.title, `HTTP ${status}`));
    super(detail);
    this.status = status;
    this.code = text(problem.code, `http_${status}`);
    this.title = text(problem.title, `HTTP ${status}`);
    this.detail = detail;
    this.type = text(problem.type, 'about:blank');
    this.instance = text(problem.instance, '');
    this.errors = Array.isArray(problem.errors) ? (problem.errors as FieldProblem[]) : [];
    this.problem = problem;
    this.headers = headers;
  }
}

/** 400: the request body, a query parameter, filter, sort or fields value is invalid. */
export class ValidationError extends ProblemError {
  override readonly name: string = 'ValidationError';
}

/** 401: no, or an invalid, access token (the client already fetched a new one once). */
export class AuthenticationError extends ProblemError {
  override readonly name: string = 'AuthenticationError';
}

/** 403: the token lacks the capability, or the source address or tenant is not allowed. */
export class PermissionError extends ProblemError {
  override readonly name: string = 'PermissionError';
}

/** 404: no such record, or outside the caller's tenants. */
export class NotFoundError extends ProblemError {
  override readonly name: string = 'NotFoundError';
}

/** 409: the record still has live children (cascade deny), or another conflict. */
export class ConflictError extends ProblemError {
  override readonly name: string = 'ConflictError';
}

/** 412: the `If-Match` ETag is stale; read the record again (see `updateWithRetry`). */
export class PreconditionFailedError extends ProblemError {
  override readonly name: string = 'PreconditionFailedError';
}

/** 429: rate limited, and waiting `Retry-After` was not allowed (too long, or attempts used up). */
export class RateLimitError extends ProblemError {
  override readonly name: string = 'RateLimitError';
  /** Seconds the service asked to wait, when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, problem: Record<string, unknown>, headers: Headers, retryAfterSeconds: number | undefined) {
    super(status, problem, headers);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const byStatus: Readonly<Record<number, typeof ProblemError>> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
};

/** The error for a problem answer, of the subclass its status has. */
export function problemError(status: number, problem: Record<string, unknown>, headers: Headers, retryAfterSeconds?: number): ProblemError {
  if (status === 429) return new RateLimitError(status, problem, headers, retryAfterSeconds);
  const Class = byStatus[status] ?? ProblemError;
  return new Class(status, problem, headers);
}

/** The token endpoint refused the request (RFC 6749 §5.2 `error`). */
export class TokenRequestError extends BookingClientError {
  override readonly name: string = 'TokenRequestError';
  /** `invalid_client`, `invalid_scope`, `invalid_dpop_proof`, … */
  readonly error: string;
  readonly errorDescription: string | undefined;
  readonly status: number;

  constructor(status: number, error: string, errorDescription: string | undefined) {
    super(errorDescription ? `${error}: ${errorDescription}` : error);
    this.status = status;
    this.error = error;
    this.errorDescription = errorDescription;
  }
}

/** The request never got an answer (connection refused or reset, DNS, timeout). */
export class ConnectionError extends BookingClientError {
  override readonly name: string = 'ConnectionError';
  /** Whether the client retried: only idempotent requests are. */
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.attempts = attempts;
  }
}
