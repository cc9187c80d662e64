import { execFile } from 'node:child_process';
import { compiledEntry } from './compiled-service.js';
import { repoRoot } from './repo-root.js';

/** Root of the checkout: the CLI and the server run from here. */
export { repoRoot };

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment a child process gets: the parent's, minus the storage and log settings a
 * test run may carry, plus `env`.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'DATA_DIR', 'PORT', 'PUBLIC_URL', 'LOG_LEVEL', 'NODE_OPTIONS']) delete base[key];
  return { ...base, ...env };
}

/**
 * Runs the real operator CLI from the repository root, as `npm run cli` does, minus npm's
 * start-up and tsx's compiling on every start: `cli/main.ts` as compiled-service.ts compiled
 * it (tsx's transform, once). Resolves with its exit code and output, whatever the code.
 */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...compiledEntry('cli/main.js'), ...args], { cwd: repoRoot, env: childEnv(env), timeout: 30_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** The single JSON object a CLI run printed (fails when stdout holds anything else). */
export function onlyJson(run: CliRun): Record<string, unknown> {
  const lines = run.stdout.split('\n').filter((line) => line.length > 0);
  if (lines.length !== 1) throw new Error(`expected one line of JSON, got:\n${run.stdout}\nstderr:\n${run.stderr}`);
  const parsed: unknown = JSON.parse(lines[0] ?? '');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`not a JSON object: ${lines[0]}`);
  return parsed as Record<string, unknown>;
}
