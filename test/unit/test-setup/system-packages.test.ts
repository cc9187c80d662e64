import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresBinDir } from '../../support/system-binaries.js';
import { ensureSystemPackages, installCommand, systemPackages } from '../../support/system-packages.js';
import type { Host, SystemPackage } from '../../support/system-packages.js';

/** A package that appears once `installed` names it, as apt-get would make it appear. */
function fakePackage(name: string, installed: Set<string>): SystemPackage {
  return { name, neededBy: `the ${name} tests`, locate: () => (installed.has(name) ? `/usr/bin/${name}` : undefined) };
}

/** A machine whose apt-get installs into `installed` and records every call. */
function fakeHost(options: { root: boolean; apt?: boolean; installed: Set<string>; failing?: 'update' | 'install'; installs?: boolean }) {
  const calls: string[] = [];
  const said: string[] = [];
  const host: Host = {
    isRoot: () => options.root,
    hasAptGet: () => options.apt ?? true,
    run(command, args) {
      calls.push([command, ...args].join(' '));
      if (args[0] === options.failing) return { status: 100, output: 'E: Unable to locate package' };
      if (args[0] === 'install' && options.installs !== false) for (const arg of args.slice(1)) if (!arg.startsWith('-') && !arg.includes('=')) options.installed.add(arg);
      return { status: 0, output: '' };
    },
    say: (line) => void said.push(line),
  };
  return { host, calls, said };
}

describe('ensureSystemPackages', () => {
  it('does nothing when every package is present', () => {
    const installed = new Set(['postgresql', 'redis-server']);
    const { host, calls, said } = fakeHost({ root: true, installed });
    ensureSystemPackages([fakePackage('postgresql', installed), fakePackage('redis-server', installed)], host);
    expect(calls).toEqual([]);
    expect(said).toEqual([]);
  });

  it('as root installs only the missing packages with a quiet, non-interactive apt-get and says what and why', () => {
    const installed = new Set(['postgresql']);
    const { host, calls, said } = fakeHost({ root: true, installed });
    ensureSystemPackages(
      ['postgresql', 'redis-server', 'chromium'].map((name) => fakePackage(name, installed)),
      host,
    );
    expect(calls).toEqual(['apt-get update -qq -o DPkg::Lock::Timeout=600', 'apt-get install -y -qq -o DPkg::Lock::Timeout=600 redis-server chromium']);
    expect(said[0]).toContain('installing redis-server, chromium with apt-get');
    expect(said[0]).toContain('redis-server: the redis-server tests');
    expect(said[0]).toContain('chromium: the chromium tests');
    expect(said[1]).toMatch(/^test set-up: installed redis-server, chromium in \d+ s$/);
  });

  it('when not root stops with the exact command to run, and runs nothing', () => {
    const installed = new Set<string>();
    const { host, calls } = fakeHost({ root: false, installed });
    expect(() => ensureSystemPackages([fakePackage('redis-server', installed), fakePackage('chromium', installed)], host)).toThrow(
      'Install them, then run the tests again:\n  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server chromium',
    );
    expect(calls).toEqual([]);
  });

  it('without apt-get names what to install and runs nothing', () => {
    const installed = new Set<string>();
    const { host, calls } = fakeHost({ root: true, apt: false, installed });
    expect(() => ensureSystemPackages([fakePackage('postgresql', installed)], host)).toThrow('This machine has no apt-get: install postgresql');
    expect(calls).toEqual([]);
  });

  it('fails loudly with apt-get’s own message when the installation fails', () => {
    const installed = new Set<string>();
    const { host } = fakeHost({ root: true, installed, failing: 'install' });
    expect(() => ensureSystemPackages([fakePackage('chromium', installed)], host)).toThrow(/apt-get install failed \(exit 100\) while installing chromium:\nE: Unable to locate package/);
  });

  it('goes on to the install when the update fails (the lists may be current)', () => {
    const installed = new Set<string>();
    const { host, calls, said } = fakeHost({ root: true, installed, failing: 'update' });
    ensureSystemPackages([fakePackage('redis-server', installed)], host);
    expect(calls).toHaveLength(2);
    expect(said[1]).toContain('apt-get update failed (exit 100)');
    expect(installed.has('redis-server')).toBe(true);
  });

  it('fails when a package was installed but its program is still not found', () => {
    const installed = new Set<string>();
    const { host } = fakeHost({ root: true, installed, installs: false });
    expect(() => ensureSystemPackages([fakePackage('chromium', installed)], host)).toThrow('still not found:\n  chromium: the chromium tests');
  });

  it('covers PostgreSQL, redis-server, Chromium, curl, nginx, jq and PgBouncer', () => {
    expect(systemPackages.map((p) => p.name)).toEqual(['postgresql', 'redis-server', 'chromium', 'curl', 'nginx', 'jq', 'pgbouncer']);
    expect(installCommand(['a', 'b'])).toBe('sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y a b');
  });
});

describe('postgresBinDir', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  function programs(dir: string, names: readonly string[]): string {
    mkdirSync(dir, { recursive: true });
    for (const name of names) {
      writeFileSync(join(dir, name), '#!/bin/sh\n');
      chmodSync(join(dir, name), 0o755);
    }
    return dir;
  }

  it('finds the newest complete Debian version when the PATH has none', () => {
    root = mkdtempSync(join(tmpdir(), 'pg-bin-'));
    const debian = join(root, 'postgresql');
    programs(join(debian, '9.6', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    const fifteen = programs(join(debian, '15', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    programs(join(debian, '16', 'bin'), ['pg_ctl']);
    expect(postgresBinDir(join(root, 'empty'), debian)).toBe(fifteen);
  });

  it('prefers the installation whose initdb is on the PATH, following its symlink', () => {
    root = mkdtempSync(join(tmpdir(), 'pg-bin-'));
    const debian = join(root, 'postgresql');
    const thirteen = programs(join(debian, '13', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    programs(join(debian, '15', 'bin'), ['initdb', 'pg_ctl', 'postgres']);
    const local = join(root, 'local-bin');
    mkdirSync(local);
    symlinkSync(join(thirteen, 'initdb'), join(local, 'initdb'));
    expect(postgresBinDir(`${join(root, 'empty')}:${local}`, debian)).toBe(thirteen);
  });

  it('is undefined when PostgreSQL is not installed', () => {
    root = mkdtempSync(join(tmpdir(), 'pg-bin-'));
    expect(postgresBinDir(join(root, 'empty'), join(root, 'no-such-dir'))).toBeUndefined();
  });
});
