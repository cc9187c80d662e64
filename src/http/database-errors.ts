import { ApiError } from './errors.js';

/**
 * Driver error codes that mean "the database is overloaded or busy", not "the request is
 * wrong" or "the code is broken": PostgreSQL's `query_canceled` (raised by
 * `statement_timeout`, which bounds `$regex` and runaway scans), its lock timeout, a
 * transaction it aborted to break a deadlock or a serialisation conflict (rolled back
 * whole, so a retry is safe; the private reason names it in the log), and SQLite's busy /
 * locked results once `busy_timeout` has run out.
 */
const transientCodes: ReadonlyMap<string, string> = new Map([
  ['57014', 'statement timeout'],
  ['55P03', 'lock timeout'],
  ['40P01', 'deadlock detected'],
  ['40001', 'serialization failure'],
  ['SQLITE_BUSY', 'database busy'],
  ['SQLITE_LOCKED', 'database locked'],
  ['SQLITE_REGEX_TIMEOUT', 'regex time budget exhausted'],
]);

/**
 * Codes that mean "the database cannot be reached right now": PostgreSQL shutting down,
 * starting up or out of connections (class 57P, 53300), a broken connection (class 08) and
 * the socket errors Node reports while the server is down or restarting.
 */
const unavailableCodes: ReadonlyMap<string, string> = new Map([
  ['57P01', 'database shutting down'],
  ['57P02', 'database crashed'],
  ['57P03', 'database not accepting connections yet'],
  ['53300', 'database out of connections'],
  ['ECONNREFUSED', 'database connection refused'],
  ['ECONNRESET', 'database connection reset'],
  ['EPIPE', 'database connection broken'],
  ['ETIMEDOUT', 'database connection timed out'],
  ['ENOTFOUND', 'database host not found'],
  ['EAI_AGAIN', 'database host lookup failed'],
]);

/**
 * Errors node-postgres raises without a code when a connection ends under a query or a
 * pool cannot connect in time; their messages are all it gives.
 */
const unavailableMessages = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable)/;

/** Seconds a client should wait before retrying a refused request. */
const retryAfterSeconds = '1';

function unavailableReason(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return unavailableCodes.get(code) ?? (code.startsWith('08') ? `database connection failure` : undefined);
  // Several addresses tried at once (localhost as ::1 and 127.0.0.1) fail as one AggregateError.
  if (error instanceof AggregateError) return error.errors.map(unavailableReason).find((reason) => reason !== undefined);
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && unavailableMessages.test(message) ? 'database connection lost' : undefined;
}

/**
 * A 503 `service_unavailable` for a transient database failure (busy, timed out, or not
 * reachable at all), or `undefined` for any other error. The driver's message (which may
 * quote SQL) is kept for the logs only.
 */
export function fromDatabase(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const busy = typeof code === 'string' ? transientCodes.get(code) : undefined;
  if (busy !== undefined) {
    return new ApiError('service_unavailable', 'The database could not answer in time; narrow the query or retry later', {
      headers: { 'retry-after': retryAfterSeconds },
      privateReason: `${busy} (${String(code)})`,
      cause: error,
    });
  }
  const unavailable = unavailableReason(error);
  if (unavailable === undefined) return undefined;
  return new ApiError('service_unavailable', 'The database is not reachable at the moment; retry later', {
    headers: { 'retry-after': retryAfterSeconds },
    privateReason: `${unavailable}${typeof code === 'string' ? ` (${code})` : ''}`,
    cause: error,
  });
}
