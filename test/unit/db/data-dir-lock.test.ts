import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirInUseError, acquireDataDirLock, dataDirHolder, lockFileName } from '../../../src/db/data-dir-lock.js';

describe('data directory lock', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  const holder = (pid: number | undefined, host = hostname()) => `${JSON.stringify({ pid, host, purpose: 'server', since: '2026-01-01T00:00:00.000Z' })}\n`;

  /** A process that stays alive until the test ends it. */
  const liveProcess = (): ChildProcess => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const ended = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.on('exit', resolve)));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-lock-unit-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await ended(child);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes over from a holder that was killed but not yet reaped (a zombie), though kill(pid, 0) still finds it', async () => {
    // `sh` forks a short `sleep`, then becomes a long one that never reaps it: a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(parent);
    const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    await expect.poll(() => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0], { timeout: 5_000 }).toBe('Z');
    expect(() => process.kill(pid, 0)).not.toThrow();
    writeFileSync(join(dir, lockFileName), holder(pid));
    expect(dataDirHolder(dir)).toBeUndefined();
    acquireDataDirLock(dir, 'server').release();
  });

  it('writes who holds it and removes only its own file on release', () => {
    const lock = acquireDataDirLock(dir, 'restore');
    expect(JSON.parse(readFileSync(join(dir, lockFileName), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), purpose: 'restore' });
    expect(existsSync(join(dir, `${lockFileName}.${process.pid}.tmp`))).toBe(false);
    lock.release();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
    // A file someone else wrote after ours is not ours to remove.
    const again = acquireDataDirLock(dir, 'restore');
    writeFileSync(join(dir, lockFileName), holder(1));
    again.release();
    expect(existsSync(join(dir, lockFileName))).toBe(true);
  });

  it('refuses while a live process of this host holds it, and takes over once it is gone', async () => {
    const other = liveProcess();
    writeFileSync(join(dir, lockFileName), holder(other.pid));
    expect(() => acquireDataDirLock(dir, 'restore')).toThrow(DataDirInUseError);
    expect(dataDirHolder(dir)).toMatchObject({ pid: other.pid, purpose: 'server' });
    other.kill('SIGKILL');
    await ended(other);
    expect(dataDirHolder(dir)).toBeUndefined();
    const lock = acquireDataDirLock(dir, 'restore');
    expect(JSON.parse(readFileSync(join(dir, lockFileName), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('never takes over a lock of another host, and treats an unreadable file as stale', () => {
    writeFileSync(join(dir, lockFileName), holder(1, 'another-host.example'));
    expect(() => acquireDataDirLock(dir, 'restore')).toThrow(/in use by server \(pid 1 on another-host\.example/);
    writeFileSync(join(dir, lockFileName), 'garbage');
    acquireDataDirLock(dir, 'restore').release();
    expect(existsSync(join(dir, lockFileName))).toBe(false);
  });
});
