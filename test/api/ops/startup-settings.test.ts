import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
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
    // A boot that hangs is killed (exit code null), so a test fails instead of waiting forever.
    timeout: 30_000,
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

describe('a bad address, URL or file setting stops the real server before the database is created', () => {
  it.each([
    ['SMTP_URL', { SMTP_URL: 'http://x' }, 'SMTP_URL must be a smtp:// or smtps:// URL'],
    ['HOST', { HOST: '999.1.1.1' }, 'HOST "999.1.1.1" is not an IP address or a host name'],
    ['TRUST_PROXY', { TRUST_PROXY: '1.2.3.4/99' }, 'TRUST_PROXY: invalid CIDR "1.2.3.4/99"'],
    ['SIGNING_KEYS_FILE', { SIGNING_KEYS_FILE: '/nonexistent/keys.json' }, 'SIGNING_KEYS_FILE: cannot read "/nonexistent/keys.json": no such file'],
    ['TLS_CERT_FILE', { TLS_CERT_FILE: '/nonexistent/cert.pem' }, 'TLS_CERT_FILE is set without TLS_KEY_FILE'],
  ])(
    '%s: exit 1, one line on stderr naming it, no database file',
    async (_name, env, message) => {
      const dataDir = join(mkdtempSync(join(dir, 'case-')), 'data');
      const { code, stdout, stderr } = await boot({ DATA_DIR: dataDir, ...env });
      expect(code).toBe(1);
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]?.startsWith(`startup failed: ${message}`), lines[0]).toBe(true);
      expect(stdout).toBe('');
      // Refused before the data directory was locked or the database opened.
      expect(existsSync(join(dataDir, 'booking.sqlite'))).toBe(false);
      expect(existsSync(dataDir)).toBe(false);
    },
    60_000,
  );
});

describe('a DATA_DIR that cannot be made stops the real server promptly', () => {
  it.each([
    // Node's recursive mkdir retries a /proc path forever: the boot used to hang here.
    ['under /proc', () => '/proc/nope', /^startup failed: DATA_DIR: cannot create "\/proc\/nope": .*ENOENT/],
    [
      'through a regular file',
      () => {
        const file = join(mkdtempSync(join(dir, 'case-')), 'a-file');
        writeFileSync(file, '');
        return join(file, 'data');
      },
      /^startup failed: DATA_DIR: cannot create ".*a-file\/data": a parent is not a directory/,
    ],
  ])(
    '%s: exit 1, one line on stderr naming DATA_DIR',
    async (_name, dataDir, message) => {
      const { code, stdout, stderr } = await boot({ DATA_DIR: dataDir() });
      expect(code).toBe(1);
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(stdout).toBe('');
    },
    60_000,
  );
});

describe('an address the real server cannot listen on stops it with one line naming PORT or HOST', () => {
  it('a PORT another process holds: exit 1, the address, the errno and the settings to change', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as AddressInfo).port;
      const { code, stdout, stderr } = await boot({ DATA_DIR: join(mkdtempSync(join(dir, 'case-')), 'data'), HOST: '127.0.0.1', PORT: String(port) });
      expect(code).toBe(1);
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, stderr).toEqual([`startup failed: cannot listen on 127.0.0.1:${port} (address in use, EADDRINUSE): set PORT (or HOST) to a free address`]);
      expect(stdout).not.toContain('service listening');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);

  it('a HOST that is no address of this machine: exit 1, naming HOST', async () => {
    // 192.0.2.0/24 is documentation space (RFC 5737): no interface of a test machine has it.
    const { code, stdout, stderr } = await boot({ DATA_DIR: join(mkdtempSync(join(dir, 'case-')), 'data'), HOST: '192.0.2.1' });
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^startup failed: cannot listen on 192\.0\.2\.1:\d+ \(no address of this machine, EADDRNOTAVAIL\): set HOST to an address of this machine/);
    expect(stdout).not.toContain('service listening');
  }, 60_000);
});
