import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { childEnv, repoRoot } from '../support/run-cli.js';
import { startServer } from '../support/server-process.js';
import type { ServerProcess } from '../support/server-process.js';

/** The shell blocks of the README's "Quick start" section. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/**
 * A directory laid out like a fresh checkout: every top-level entry of this one linked in,
 * without its data, builds or keys. npm runs the CLI there, so files the commands write
 * (client.key, ./data) land in it.
 */
function checkoutCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'booking-quickstart-'));
  const skip = new Set(['.git', 'data', 'dist', 'generated', '.tmp', 'coverage', 'client.key', 'client.pub']);
  for (const entry of readdirSync(repoRoot)) if (!skip.has(entry)) symlinkSync(join(repoRoot, entry), join(dir, entry));
  mkdirSync(join(dir, 'data'));
  return dir;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: childEnv(env), timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr });
    });
  });
}

describe('README quick start, run literally against a started service', () => {
  let dir: string;
  let port: number;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = checkoutCopy();
    port = await freePort();
    // `npm start` in the README; here the same server on a free port, its data in the copy.
    server = startServer(port, { DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' });
    await server.waitReady();
  }, 60_000);
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts with clone, install and start', () => {
    const [setup] = quickStartBlocks();
    expect(setup).toContain('npm install && npm start');
  });

  it('keeps the README short enough to read before the first start: at most 150 lines', () => {
    // Reference tables belong in docs/ (the deployment's files: docs/operations.md).
    expect(readFileSync(join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });

  it('goes from nothing to a created booking with the CLI and curl', async () => {
    const commands = quickStartBlocks()[1] ?? '';
    // Clone to booking in under five commands after start (issue 17).
    expect(commands.trim().split('\n')).toHaveLength(4);
    // The only change: the port this test's server listens on instead of 3000.
    // Each CLI and curl answer is copied to stderr: a command substitution would swallow the
    // one that explains a failure. The README's lines themselves run unchanged.
    // (awk writes "/dev/stderr" to its descriptor 2; opening that path fails on a socket.)
    const copy = `| awk '{ print; print > "/dev/stderr" }'`;
    const echoAnswers = `npm() { command npm "$@" ${copy}; }\ncurl() { command curl "$@" ${copy}; }\n`;
    const run = await bash(echoAnswers + commands.replaceAll('localhost:3000', `localhost:${port}`), dir, { PORT: String(port) });
    expect(run.code, `${run.stdout}\n${run.stderr}\n${server.stdout()}`).toBe(0);

    const lines = run.stdout.trim().split('\n');
    expect(readFileSync(join(dir, 'client.pub'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    expect(statSync(join(dir, 'client.key')).mode & 0o777).toBe(0o600);
    const booking = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
    expect(booking).toMatchObject({ _id: expect.any(String), product_id: expect.any(String), start_time: '2030-06-01T15:00:00.000Z', status: 'active' });
  }, 120_000);

  it('leaves the key pair it writes into the checkout out of git', async () => {
    // `git check-ignore` exits 0 for an ignored path, 1 for one `git add` would pick up.
    for (const file of ['client.key', 'client.pub']) {
      const ignored = await new Promise<number>((resolve) =>
        execFile('git', ['check-ignore', '--quiet', '--no-index', file], { cwd: repoRoot }, (error) => resolve(typeof error?.code === 'number' ? error.code : error ? -1 : 0)),
      );
      expect(ignored, file).toBe(0);
    }
  });
});
