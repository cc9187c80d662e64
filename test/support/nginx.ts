import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portReachable } from './free-port.js';
import { findNginx } from './system-binaries.js';

/** A throwaway nginx in front of service instances; a missing binary is a loud failure. */
export interface Nginx {
  /** Where clients reach it (`http://127.0.0.1:<port>`). */
  readonly origin: string;
  readonly port: number;
  /** The configuration it runs (docs/operations.md shows the same shape). */
  readonly config: string;
  /** Its error log so far (upstream failures, retries). */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * The load balancer configuration the deployment test runs: round robin over `upstreams`
 * (`host:port`), keep-alive connections to them, the client address appended to
 * `X-Forwarded-For`, and a failed or refusing (502/503) instance skipped for the next one;
 * nginx resends only idempotent requests, or any request it could not deliver at all.
 */
export function nginxConfig(options: { port: number; upstreams: readonly string[]; prefix: string; user?: string }): string {
  return `${options.user ? `user ${options.user};\n` : ''}worker_processes 1;
daemon off;
pid ${options.prefix}/nginx.pid;
error_log ${options.prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${options.prefix}/client_body;
  proxy_temp_path ${options.prefix}/proxy;
  fastcgi_temp_path ${options.prefix}/fastcgi;
  uwsgi_temp_path ${options.prefix}/uwsgi;
  scgi_temp_path ${options.prefix}/scgi;
  upstream booking {
${options.upstreams.map((address) => `    server ${address} max_fails=0;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${options.port};
    location / {
      proxy_pass http://booking;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
      proxy_read_timeout 15s;
    }
  }
}
`;
}

/** Starts nginx (in the foreground, as a child of the test) balancing over `upstreams`. */
export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const program = findNginx();
  if (!program) throw new Error('The deployment test needs nginx (Debian package nginx; the test set-up installs it as root). Refusing to skip.');
  const prefix = mkdtempSync(join(tmpdir(), 'booking-nginx-'));
  // As root, nginx's workers run as `nobody`: they must reach the temp directories.
  chmodSync(prefix, 0o755);
  const port = await freePort();
  const config = nginxConfig({ port, upstreams, prefix, ...(process.getuid?.() === 0 ? { user: 'nobody nogroup' } : {}) });
  writeFileSync(join(prefix, 'nginx.conf'), config);
  // -e: the error log before the configuration is read (the default /var/log/nginx may not be writable).
  const child = spawn(program, ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () => {
    try {
      return readFileSync(join(prefix, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  for (let i = 0; i < 100 && child.exitCode === null && !(await portReachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await portReachable(port))) {
    child.kill('SIGKILL');
    throw new Error(`nginx did not start:\n${stderr}\n${errorLog()}`);
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    config,
    errorLog,
    async stop() {
      // SIGQUIT: graceful; the master waits for its worker, so no process is left behind.
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
