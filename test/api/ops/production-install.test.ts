import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { memoryTempDir } from '../../support/memory-temp-dir.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { childEnv, repoRoot } from '../../support/run-cli.js';

/*
 * Issue 26: the service deployed the way Node services are, with production dependencies
 * only, on a fresh clone of this repository's committed HEAD (`git clone`, then `npm ci`).
 * Uncommitted changes in the working tree are not part of what this tests: commit first.
 *
 * One `npm ci` and one build serve both paths: the clone is packed (`npm pack`), then
 * pruned (`npm prune --omit=dev`) and started with `npm start`; the tarball is installed
 * with `npm install --omit=dev` in an empty folder and started with the package's
 * `npm start`, on SQLite and on PostgreSQL. Each start must answer `/ready`, serve the
 * console at `/admin` and issue an access token to a client the production CLI
 * (`node dist/cli/main.js`) registered. npm needs the registry (`--prefer-offline` takes
 * what the npm cache has). Both installs run the native modules' install scripts, which
 * take the binaries this checkout's `npm ci` compiled from a local prebuilds folder
 * (`localPrebuilds`) instead of compiling them again: the offline install path of
 * docs/operations.md. `.ci/run`'s own `npm ci` is what proves they compile from source.
 */

const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund'];

/** The native modules `npm ci` installs with prebuild-install, and the binary each one loads. */
const nativeModules = { 'better-sqlite3': 'build/Release/better_sqlite3.node', libxmljs2: 'build/Release/xmljs.node' } as const;

/**
 * Packs this checkout's compiled native modules into `dir` under the names prebuild-install
 * looks for (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`) and returns the
 * `npm_config_<name>_local_prebuilds` variables that point the install scripts there.
 * prebuild-install loads each binary after unpacking it; a module whose version differs
 * from the one installed here finds no file and compiles, as it would without the folder.
 */
async function localPrebuilds(dir: string): Promise<Record<string, string>> {
  mkdirSync(dir);
  const env: Record<string, string> = {};
  for (const [name, binary] of Object.entries(nativeModules)) {
    const installed = join(repoRoot, 'node_modules', name);
    if (!existsSync(join(installed, binary))) continue;
    const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string };
    const file = `${name}-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    await ok('tar', ['czf', join(dir, file), binary], installed);
    env[`npm_config_${name.replace(/[^a-zA-Z0-9]/g, '_')}_local_prebuilds`] = dir;
  }
  return env;
}

/**
 * The environment of an npm or service child: none of the `npm test` run's lifecycle
 * variables or its `node_modules/.bin` on the PATH (they would hand this checkout's dev
 * tools to the production install), the npm cache and registry kept, plus `extra`.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = childEnv({});
  const kept = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);
  for (const key of Object.keys(env)) if ((key.startsWith('npm_') && !kept.has(key)) || key === 'INIT_CWD') delete env[key];
  Object.assign(env, extra);
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !/node_modules[\\/]\.bin$/.test(dir) && !dir.includes('node-gyp-bin'))
    .join(delimiter);
  return env;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` in `cwd` and resolves with its exit code and output, whatever the code. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 600_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: cleanEnv(env), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Like `run`, but fails with the output unless the command succeeded. */
async function ok(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * Starts the service with `npm start` in `dir` (its own process group, so stopping it
 * reaches npm, the shell and node), checks `/ready`, `/admin` and a token request, then
 * stops it with SIGTERM.
 */
async function startAndProbe(dir: string, storage: { DATA_DIR: string; DATABASE_URL?: string }): Promise<void> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = { ...storage, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: origin, LOG_LEVEL: 'info' };

  // The operator registers a client with the CLI the package ships (no tsx).
  const key = clientKeyPair();
  const keyFile = `${storage.DATA_DIR}-probe.pub`;
  writeFileSync(keyFile, key.publicPem);
  const created = await ok(process.execPath, ['dist/cli/main.js', 'client', 'create', '--name', 'probe', '--new-tenant', 'Acme', '--capabilities', 'products:list', '--public-key', keyFile], dir, env);
  const client = JSON.parse(created.stdout) as { client_id: string; kid: string };

  const child = spawn('npm', ['start'], { cwd: dir, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  // 'close', not 'exit': npm may end before the service it started, which shares its pipes.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited early (${child.exitCode}):\n${out}`);
      const status = await fetch(`${origin}/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${out}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // `npm start` ran the build check on plain Node and found the shipped build current.
    expect(out).not.toContain('building');

    const admin = await fetch(`${origin}/admin`);
    expect(admin.status).toBe(200);
    expect(admin.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await admin.text();
    const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script, page).toBeDefined();
    expect((await fetch(`${origin}${script ?? ''}`)).status).toBe(200);

    const assertion = await signAssertion(key, client.client_id, `${origin}/v1/auth/token`, { kid: client.kid });
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    const token = await fetch(`${origin}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    const tokenBody = (await token.json()) as { access_token?: unknown };
    expect(token.status, JSON.stringify(tokenBody)).toBe(200);
    const products = await fetch(`${origin}/v1/products`, { headers: { authorization: `Bearer ${String(tokenBody.access_token)}` } });
    expect(products.status).toBe(200);
  } finally {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await closed;
  }
  // SIGTERM is a graceful shutdown: the service finished it and closed the port.
  expect(out).toContain('"msg":"shutdown complete"');
  expect(
    await fetch(`${origin}/ready`).then(
      (r) => r.status,
      () => 0,
    ),
  ).toBe(0);
}

describe('a production install (issue 26)', () => {
  let work: string;
  let clone: string;
  let tarball: string;
  let prebuilds: Record<string, string>;

  beforeAll(async () => {
    // Two installs of node_modules (the clone's, the package's production one) and a build.
    work = memoryTempDir('booking-prodinstall-', 2 * 1024 ** 3);
    clone = join(work, 'clone');
    const top = (await ok('git', ['rev-parse', '--show-toplevel'], repoRoot)).stdout.trim();
    const head = (await ok('git', ['rev-parse', 'HEAD'], top)).stdout.trim();
    await ok('git', ['clone', '--quiet', '--no-checkout', top, clone], work);
    await ok('git', ['checkout', '--quiet', '--detach', head], clone);
    prebuilds = await localPrebuilds(join(work, 'prebuilds'));
    await ok('npm', ['ci', ...npmFlags], clone, prebuilds);
    await ok('npm', ['run', 'build'], clone);
    // Packing a current build does not rebuild; the tarball carries the lockfile as npm-shrinkwrap.json.
    const packed = await ok('npm', ['pack', '--pack-destination', work], clone);
    expect(packed.stderr).not.toContain('building');
    expect(existsSync(join(clone, 'npm-shrinkwrap.json'))).toBe(false);
    const tarballs = readdirSync(work).filter((name) => name.endsWith('.tgz'));
    expect(tarballs).toHaveLength(1);
    tarball = join(work, tarballs[0] ?? '');
  }, 900_000);

  // Two node_modules trees: removing them takes a while on a busy disk.
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  }, 300_000);

  it('build, prune the dev dependencies, npm start: starts the build; a stale build stops with one line naming npm run build', async () => {
    await ok('npm', ['prune', '--omit=dev', ...npmFlags], clone);
    for (const tool of ['tsx', 'tsc', 'vite', 'cyclonedx-npm']) expect(existsSync(join(clone, 'node_modules/.bin', tool)), tool).toBe(false);

    const main = join(clone, 'src/main.ts');
    const source = readFileSync(main, 'utf8');
    writeFileSync(main, `${source}\n// edited after the build\n`);
    const stale = await run('npm', ['start'], clone, { DATA_DIR: join(work, 'stale-data') }, 60_000);
    writeFileSync(main, source);
    expect(stale.code).not.toBe(0);
    const lines = stale.stderr.split('\n').filter((line) => line.startsWith('build-stamp:'));
    expect(lines).toEqual([expect.stringContaining('run `npm run build`')]);
    expect(existsSync(join(work, 'stale-data'))).toBe(false);

    await startAndProbe(clone, { DATA_DIR: join(work, 'clone-data') });
  }, 300_000);

  it('pack, install the tarball with --omit=dev in an empty folder, npm start: serves on SQLite and on PostgreSQL', async () => {
    const app = join(work, 'app');
    mkdirSync(app);
    // The deploying project decides which install scripts run: the service's own choice.
    const manifest = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { allowScripts?: unknown };
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ private: true, allowScripts: manifest.allowScripts }, null, 2)}\n`);
    await ok('npm', ['install', '--omit=dev', ...npmFlags, tarball], app, prebuilds);
    const installed = join(app, 'node_modules/booking-service');
    for (const dev of ['tsx', 'typescript', 'vite', 'vitest', '@cyclonedx/cyclonedx-npm']) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    for (const absent of ['src', 'cli', 'admin', 'test']) expect(existsSync(join(installed, absent)), absent).toBe(false);
    for (const needed of ['dist/src/start.cjs', 'dist/src/db/migrate.js', 'dist/admin/index.html', 'dist/cli/main.js', 'dist/packages/client/src/index.js', 'generated/sbom.cdx.json'])
      expect(existsSync(join(installed, needed)), needed).toBe(true);

    await startAndProbe(installed, { DATA_DIR: join(work, 'app-sqlite') });
    await startAndProbe(installed, { DATA_DIR: join(work, 'app-postgres'), DATABASE_URL: await freshPostgresUrl() });
  }, 600_000);
});
