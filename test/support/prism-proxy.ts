import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { portReachable } from './free-port.js';
import { eventually } from './poll.js';
import { repoRoot } from './repo-root.js';

/** One problem Prism found with a request or its answer (its `sl-violations` header). */
export interface Violation {
  /** `['request', 'body']`, `['response', 'headers']`, …; `['request']` alone when no route matched. */
  readonly location: readonly string[];
  readonly severity: 'Error' | 'Warning' | 'Info' | 'Hint';
  readonly code?: string | number;
  readonly message: string;
}

/** What came back through the proxy: the service's answer and Prism's verdict on the exchange. */
export interface ProxiedAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly violations: readonly Violation[];
}

/** A running `prism proxy`: validates each request and answer against an OpenAPI document. */
export interface PrismProxy {
  readonly origin: string;
  /** Sends one request through the proxy. */
  send(method: string, path: string, options?: { headers?: Record<string, string>; body?: string }): Promise<ProxiedAnswer>;
  /** What Prism printed (its log of the exchanges). */
  output(): string;
  close(): Promise<void>;
}

/** Prism's command-line entry, run by this Node (the `prism` bin would add npx or a shell). */
function prismEntry(): string {
  const manifest = createRequire(join(repoRoot, 'package.json')).resolve('@stoplight/prism-cli/package.json');
  return join(dirname(manifest), 'dist', 'index.js');
}

/**
 * Starts `prism proxy <document> <upstream>` on 127.0.0.1:`port`, without `--errors`: every
 * request reaches the service, even one the document calls invalid (the refusals a test
 * sends on purpose), and Prism reports what it found in the `sl-violations` header of the
 * answer, request and response alike. With `--errors` it would answer a request violation
 * itself, so a deliberate refusal would never reach the service nor have its answer checked.
 * CORS is off: Prism would add its own headers and answer preflights itself.
 */
export async function startPrismProxy(documentFile: string, upstream: string, port: number): Promise<PrismProxy> {
  const child = spawn(process.execPath, [prismEntry(), 'proxy', documentFile, upstream, '--port', String(port), '--host', '127.0.0.1', '--cors=false', '--verboseLevel', 'warn'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const state = () => (child.exitCode !== null ? 'exited' : portReachable(port).then((up) => (up ? 'listening' : 'starting')));
  const started = await eventually(state, (now) => now !== 'starting', `prism proxy listening on ${port}`, 30_000).catch((error: unknown) => {
    child.kill('SIGTERM');
    throw new Error(`${error instanceof Error ? error.message : String(error)}:\n${printed}`);
  });
  if (started === 'exited') throw new Error(`prism proxy exited (${child.exitCode}):\n${printed}`);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    send: (method, path, options = {}) =>
      new Promise((resolve, reject) => {
        // node:http rather than fetch: a long list of violations outgrows fetch's 16 KiB of headers.
        const sent = request(`${origin}${path}`, { method, headers: options.headers ?? {}, maxHeaderSize: 1 << 20 }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('error', reject);
          res.on('end', () => {
            const header = res.headers['sl-violations'];
            const violations = typeof header === 'string' ? (JSON.parse(header) as Violation[]) : [];
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body, violations });
          });
        });
        sent.on('error', reject);
        sent.end(options.body);
      }),
    output: () => printed,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
