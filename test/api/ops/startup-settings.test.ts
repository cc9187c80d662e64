import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../support/compiled-service.js';
import { freePort } from '../../support/free-port.js';
import { childEnv, repoRoot } from '../../support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'booking-startup-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the real server (`src/main.ts`, compiled) with `env`; resolves once it has ended and its output is read. */
async function boot(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, compiledEntry('src/main.js'), {
    cwd: repoRoot,
    env: childEnv({ DATA_DIR: dir, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // 'close', not 'exit': the pipes are drained by then, so stderr is complete.
  const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  return { code, stdout, stderr };
}

describe('a bad network setting stops the real server at start-up', () => {
  it.each([
    ['WEBHOOK_ALLOWED_NETWORKS', '10.0.0.0/33'],
    ['WEBHOOK_ALLOWED_NETWORKS', 'nonsense'],
    ['METRICS_ALLOW', '10.0.0.0/33'],
    ['METRICS_ALLOW', '127.0.0.1/32,nonsense'],
  ])(
    '%s=%s: exit non-zero, one line on stderr naming the setting and the value, no stack',
    async (name, value) => {
      const { code, stdout, stderr } = await boot({ [name]: value });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, stderr).toHaveLength(1);
      const bad = value.split(',').at(-1) ?? value;
      expect(lines[0]).toMatch(new RegExp(`^startup failed: ${name}: invalid CIDR "${bad.replaceAll('.', '\\.')}"`));
      expect(stderr).not.toMatch(/\bat .*:\d+:\d+|cause:/);
      // It stopped before the service logged anything, so it never listened.
      expect(stdout).not.toContain('service listening');
    },
    60_000,
  );
});
