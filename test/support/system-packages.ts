import { spawnSync } from 'node:child_process';
import { findChromium, findNginx, findPgbouncer, onPath, postgresBinDir } from './system-binaries.js';

/** A Debian package some tests need, and how to tell whether this machine has it. */
export interface SystemPackage {
  /** The Debian package name (`apt-get install <name>`). */
  readonly name: string;
  /** Which tests need it and why: printed when it is installed or missing. */
  readonly neededBy: string;
  /** Where the program the tests run is, or `undefined` when it is missing. */
  locate(): string | undefined;
}

/**
 * Everything `npm test` needs beyond `npm install`. Add a package here (with its finder in
 * system-binaries.ts) and the test set-up installs it on a fresh machine.
 */
export const systemPackages: readonly SystemPackage[] = [
  { name: 'postgresql', neededBy: 'the storage and API suites run on a throwaway PostgreSQL cluster (initdb, pg_ctl)', locate: () => postgresBinDir() },
  { name: 'redis-server', neededBy: 'the rate-limit tests share counters between two instances through redis-server', locate: () => onPath('redis-server') },
  { name: 'chromium', neededBy: 'the status-page test renders /status in headless Chromium (or set CHROMIUM_PATH)', locate: () => findChromium() },
  { name: 'curl', neededBy: 'the quick-start test runs the README commands, which call the API with curl', locate: () => onPath('curl') },
  { name: 'nginx', neededBy: 'the deployment test load-balances two service instances behind nginx', locate: () => findNginx() },
  { name: 'jq', neededBy: 'the quick-start test runs the README commands, which pick ids out of JSON with jq', locate: () => onPath('jq') },
  { name: 'pgbouncer', neededBy: 'the pooler deployment test runs two instances through PgBouncer in transaction mode', locate: () => findPgbouncer() },
];

/** What the set-up may do on this machine (replaced in tests). */
export interface Host {
  isRoot(): boolean;
  hasAptGet(): boolean;
  /** Runs a command to completion; `output` is what it wrote to stderr and stdout. */
  run(command: string, args: readonly string[]): { readonly status: number | null; readonly output: string };
  /** One progress line for the person running the tests. */
  say(line: string): void;
}

// Quiet, never asks, and waits for another apt/dpkg run (a parallel test run) to finish.
const aptOptions = ['-qq', '-o', 'DPkg::Lock::Timeout=600'];

export const debianHost: Host = {
  isRoot: () => process.getuid?.() === 0,
  hasAptGet: () => onPath('apt-get') !== undefined,
  run(command, args) {
    const result = spawnSync(command, args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: result.status, output: `${result.stderr ?? ''}${result.stdout ?? ''}${result.error ? String(result.error) : ''}` };
  },
  say: (line) => void process.stderr.write(`${line}\n`),
};

/** The command a person runs to install `names` (printed when the tests cannot do it). */
export function installCommand(names: readonly string[]): string {
  return `sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y ${names.join(' ')}`;
}

function listed(packages: readonly SystemPackage[]): string {
  return packages.map((p) => `  ${p.name}: ${p.neededBy}`).join('\n');
}

/**
 * Makes sure every package in `packages` is present. Missing ones are installed with apt-get
 * when running as root; otherwise this throws with the exact command to run. Tests that
 * need a package never skip: they fail when it is missing.
 */
export function ensureSystemPackages(packages: readonly SystemPackage[] = systemPackages, host: Host = debianHost): void {
  const missing = packages.filter((p) => p.locate() === undefined);
  if (missing.length === 0) return;
  const names = missing.map((p) => p.name);
  if (!host.isRoot() || !host.hasAptGet()) {
    const how = host.hasAptGet()
      ? `Install them, then run the tests again:\n  ${installCommand(names)}`
      : `This machine has no apt-get: install ${names.join(', ')} (or their equivalents) with its package manager, then run the tests again.`;
    throw new Error(`The test suite needs system packages that are missing:\n${listed(missing)}\n${how}`);
  }
  const started = Date.now();
  host.say(`test set-up: installing ${names.join(', ')} with apt-get (missing on this machine):\n${listed(missing)}`);
  // A failed update (say, another run holds the lists lock) is not fatal by itself: the
  // package lists may be current already. The install decides.
  const update = host.run('apt-get', ['update', ...aptOptions]);
  if (update.status !== 0) host.say(`test set-up: apt-get update failed (exit ${update.status}); trying the install with the lists as they are`);
  const install = host.run('apt-get', ['install', '-y', ...aptOptions, ...names]);
  if (install.status !== 0) {
    const output = [update.status === 0 ? '' : update.output, install.output].join('\n').trim().slice(-2000);
    throw new Error(`test set-up: apt-get install failed (exit ${install.status}) while installing ${names.join(', ')}:\n${output}`);
  }
  const still = missing.filter((p) => p.locate() === undefined);
  if (still.length > 0) {
    throw new Error(`test set-up: apt-get installed ${names.join(', ')}, but these are still not found:\n${listed(still)}`);
  }
  host.say(`test set-up: installed ${names.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s`);
}
