import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

// Servers still running when the benchmark exits (an error, Ctrl-C) are asked to stop, so
// none is left holding a port; a cluster primary passes SIGTERM on to its workers.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** A server the benchmark started in its own process. */
export interface ServerProcess {
  readonly pid: number;
  readonly origin: string;
  /** The last lines it wrote (its log file's too), for error messages. */
  output(): string;
  /** Polls `path` until it answers 200. */
  waitReady(path: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/** The last `bytes` of `file` as text ('' when it cannot be read). */
function fileTail(file: string, bytes: number): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(bytes, size));
      readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      return buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * Runs `node <args>` from the repository root with `env` added to this process's
 * environment. With `logFile` its stdout (the log lines) goes to that file, emptied first,
 * as an operator redirects a service's output; else the benchmark reads it.
 */
export function startNode(args: readonly string[], env: Readonly<Record<string, string | undefined>>, origin: string, logFile?: string): ServerProcess {
  const out = logFile === undefined ? 'pipe' : openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  } finally {
    // The child holds its own copy of the descriptor.
    if (typeof out === 'number') closeSync(out);
  }
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  if (child.pid === undefined) throw new Error(`could not start node ${args.join(' ')}`);
  const pid = child.pid;
  return {
    pid,
    origin,
    output: () => (logFile === undefined ? tail : `${fileTail(logFile, 4000)}${tail}`),
    async waitReady(path, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${args.join(' ')} exited early:\n${tail}`);
        const status = await fetch(`${origin}${path}`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${args.join(' ')} not ready within ${timeoutMs} ms:\n${tail}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
