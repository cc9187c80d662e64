import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portReachable } from './free-port.js';
import { findPgbouncer } from './system-binaries.js';

/** A throwaway PgBouncer in front of one PostgreSQL database; a missing binary is a loud failure. */
export interface PgBouncer {
  /** `postgres://…` through the pooler (same user and database as the server URL). */
  readonly url: string;
  /** The ini it runs (docs/operations.md shows the same settings). */
  readonly config: string;
  /** What it wrote to stderr so far (its log). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * The pooler configuration the test runs: transaction pooling, so consecutive transactions
 * of one client may land on different server connections and no session state survives;
 * `server_pool` server connections shared by every client.
 */
export function pgbouncerConfig(options: { port: number; server: URL; serverPool: number; user?: string }): string {
  const database = options.server.pathname.slice(1) || 'postgres';
  const user = decodeURIComponent(options.server.username || 'postgres');
  return `[databases]
${database} = host=${options.server.hostname} port=${options.server.port || '5432'} dbname=${database} user=${user}

[pgbouncer]
${options.user ? `user = ${options.user}\n` : ''}listen_addr = 127.0.0.1
listen_port = ${options.port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = ${options.serverPool}
max_client_conn = 1000
server_lifetime = 3600
log_connections = 0
log_disconnections = 0
`;
}

/**
 * Starts PgBouncer (in the foreground, as a child of the test) in front of `serverUrl`.
 * PgBouncer refuses to run as root; then its `user` setting makes it drop to `postgres`,
 * as the PostgreSQL cluster does.
 */
export async function startPgbouncer(serverUrl: string, serverPool = 10): Promise<PgBouncer> {
  const program = findPgbouncer();
  if (!program) throw new Error('The pooler deployment test needs pgbouncer (Debian package pgbouncer; the test set-up installs it as root). Refusing to skip.');
  const dir = mkdtempSync(join(tmpdir(), 'booking-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new URL(serverUrl);
  const config = pgbouncerConfig({ port, server, serverPool, ...(process.getuid?.() === 0 ? { user: 'postgres' } : {}) });
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(ini, config, { mode: 0o644 });
  const child = spawn(program, [ini], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 100 && child.exitCode === null && !(await portReachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await portReachable(port))) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pgbouncer did not start:\n${stderr}`);
  }
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    config,
    log: () => stderr,
    async stop() {
      // SIGINT: immediate shutdown (SIGTERM would wait for every client to leave).
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
