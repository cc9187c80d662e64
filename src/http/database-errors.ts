import { ApiError } from './errors.js';

/**
 * Driver error codes that mean "the database is overloaded or busy", not "the request is
 * wrong" or "the code is broken": PostgreSQL's `query_canceled` (raised by
 * `statement_timeout`, which bounds `$regex` and runaway scans), its lock timeout, and
 * SQLite's busy / locked results once `busy_timeout` has run out.
 */
const transientCodes: ReadonlyMap<string, string> = new Map([
  ['57014', 'statement timeout'],
  ['55P03', 'lock timeout'],
  ['SQLITE_BUSY', 'database busy'],
  ['SQLITE_LOCKED', 'database locked'],
  ['SQLITE_REGEX_TIMEOUT', 'regex time budget exhausted'],
]);

/** Seconds a client should wait before retrying a refused request. */
const retryAfterSeconds = '1';

/**
 * A 503 `service_unavailable` for a transient database failure, or `undefined` for any
 * other error. The driver's message (which may quote SQL) is kept for the logs only.
 */
export function fromDatabase(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? transientCodes.get(code) : undefined;
  if (reason === undefined) return undefined;
  return new ApiError('service_unavailable', 'The database could not answer in time; narrow the query or retry later', {
    headers: { 'retry-after': retryAfterSeconds },
    privateReason: `${reason} (${String(code)})`,
    cause: error,
  });
}
