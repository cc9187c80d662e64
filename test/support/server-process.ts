import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { compiledEntry } from './compiled-service.js';
import { childEnv, repoRoot } from './run-cli.js';

/** A pino line of the server's stdout. */
export interface LogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly reqId?: string;
  readonly req?: { readonly url?: string };
  readonly res?: { readonly statusCode?: number };
  readonly [key: string]: unknown;
}

/** The JSON log lines in `text` (other output, such as Node's warnings, is skipped). */
export function logLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Polls `condition` until it holds; fails naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The real server (`src/main.ts`) running in a child process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly origin: string;
  /** Everything written to stdout so far (pino's JSON lines). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** Polls `/ready` until it answers 200. */
  waitReady(timeoutMs?: number): Promise<void>;
}

/**
 * Starts `src/main.ts` (compiled by test/support/compiled-service.ts, the transform tsx would
 * apply on every start) in a single Node process, so signals reach the server itself (npx and
 * the tsx binary would sit in between).
 */
export function startServer(port: number, env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, compiledEntry('src/main.js'), {
    cwd: repoRoot,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const origin = `http://127.0.0.1:${port}`;
  return {
    child,
    origin,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitReady(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${out}\n${err}`);
        const status = await fetch(`${origin}/ready`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`server not ready within ${timeoutMs} ms:\n${out}\n${err}`);
    },
  };
}
