import type { Database } from '../db/dialect.js';
import { migrationsComplete } from '../db/migrate.js';

/** One check in the `application/health+json` shape. */
export interface Check {
  readonly status: 'pass' | 'fail';
  readonly output?: string;
}

/** The outcome of {@link checkReadiness}. */
export interface Readiness {
  readonly ready: boolean;
  /** `database:connection`, `database:migrations`, and `process:shutdown` while stopping. */
  readonly checks: Readonly<Record<string, readonly Check[]>>;
}

export interface ReadinessOptions {
  /**
   * Longest the check waits for the database. An unreachable host can leave a connection
   * attempt hanging for minutes; a probe must answer well before its caller gives up.
   */
  readonly timeoutMs: number;
  /** Told why the database check failed (the answer itself says only "unreachable"). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Whether the service can take traffic: the database answers within the time limit, every
 * migration is applied, and the process is not shutting down. Shared by `/ready` and the
 * status page so both always agree.
 */
export async function checkReadiness(database: Database, state: { readonly shuttingDown: boolean }, options: ReadinessOptions): Promise<Readiness> {
  const checks: Record<string, Check[]> = {};
  let ready = !state.shuttingDown;
  try {
    const migrated = await withTimeout(databaseMigrated(database), options.timeoutMs);
    checks['database:connection'] = [{ status: 'pass' }];
    checks['database:migrations'] = [migrated ? { status: 'pass' } : { status: 'fail', output: 'migrations pending' }];
    ready &&= migrated;
  } catch (error) {
    options.onError?.(error);
    checks['database:connection'] = [{ status: 'fail', output: 'database unreachable' }];
    ready = false;
  }
  if (state.shuttingDown) checks['process:shutdown'] = [{ status: 'fail', output: 'shutting down' }];
  return { ready, checks };
}

async function databaseMigrated(database: Database): Promise<boolean> {
  await database.ping();
  return migrationsComplete(database);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`database check took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
