import type { Config } from '../src/config/config.js';
import type { Database } from '../src/db/dialect.js';
import { openDatabase } from '../src/db/open-database.js';

/**
 * How long a command waits for the running service's write lock (SQLite) before it fails as
 * busy: an operator's command may wait longer than a request (5 s, then a 503) would.
 */
export const cliBusyTimeoutMs = 30_000;

/** The database the CLI's commands run on: the server's, with the CLI's patience for its lock. */
export function openCliDatabase(config: Config): Database {
  return openDatabase(config, { busyTimeoutMs: cliBusyTimeoutMs });
}
