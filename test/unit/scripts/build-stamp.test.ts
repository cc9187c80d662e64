import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginBuild, buildIsCurrent, ensurePlan, finishBuild, inputDirs, missingBuildTools, outputs, staleReason } from '../../../scripts/build-stamp.mjs';
import { repoRoot } from '../../support/repo-root.js';

let root: string;

function write(path: string, contents: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), contents);
}

/** A small project tree with every build input and the outputs of a build. */
function project(): void {
  write('src/main.ts', 'export const a = 1;\n');
  write('src/routes/health.ts', 'export const b = 2;\n');
  write('cli/main.ts', 'export const c = 3;\n');
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) write(file, '{}\n');
  write('test/ignored.test.ts', 'tests are not a build input\n');
  for (const output of outputs) write(output, '// built\n');
}

/** What the build would do around tsc: prebuild's `begin`, postbuild's `finish`. */
function build(): void {
  beginBuild(root);
  finishBuild(root);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'build-stamp-'));
  project();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('buildIsCurrent', () => {
  it('is false before the first build and true after it, for as long as nothing changes', () => {
    expect(buildIsCurrent(root)).toBe(false);
    build();
    expect(buildIsCurrent(root)).toBe(true);
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('goes by contents, not times: touching a file changes nothing, changing it does', () => {
    build();
    utimesSync(join(root, 'src/main.ts'), new Date(2030, 0, 1), new Date(2030, 0, 1));
    expect(buildIsCurrent(root)).toBe(true);
    write('src/routes/health.ts', 'export const b = 3;\n');
    expect(buildIsCurrent(root)).toBe(false);
    // The tree the stamp describes is what counts: undoing the edit needs no build.
    write('src/routes/health.ts', 'export const b = 2;\n');
    expect(buildIsCurrent(root)).toBe(true);
  });

  it.each([
    ['a new source file', () => write('cli/extra.ts', 'export {};\n')],
    ['a removed source file', () => rmSync(join(root, 'src/routes/health.ts'))],
    ['a renamed source file', () => (write('src/routes/ready.ts', 'export const b = 2;\n'), rmSync(join(root, 'src/routes/health.ts')))],
    ['new dependencies', () => write('package-lock.json', '{"lockfileVersion":3}\n')],
    ['compiler settings', () => write('tsconfig.build.json', '{"compilerOptions":{}}\n')],
    ['a missing output', () => rmSync(join(root, 'dist/src/start.cjs'))],
    ['a missing SBOM', () => rmSync(join(root, 'generated/sbom.cdx.json'))],
  ])('asks for a build after %s', (_what, change) => {
    build();
    change();
    expect(buildIsCurrent(root)).toBe(false);
  });

  it('ignores files that are not build inputs', () => {
    build();
    write('test/ignored.test.ts', 'changed\n');
    write('README.md', 'changed\n');
    expect(buildIsCurrent(root)).toBe(true);
  });

  it('does not trust a build that started but never finished (tsc failed)', () => {
    build();
    beginBuild(root);
    expect(buildIsCurrent(root)).toBe(false);
    expect(staleReason(root)).toBe('no finished build recorded');
  });

  it('says why it builds', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleReason(root)).toBe('no build yet (dist/src/start.cjs is missing)');
    project();
    build();
    write('cli/main.ts', 'export const c = 4;\n');
    expect(staleReason(root)).toBe('sources changed since the last build');
  });
});

describe('a packed artifact (no sources)', () => {
  it('is current once its finished build has every output, whatever the stamp says', () => {
    build();
    write('package.json', '{"name":"changed by the packer"}\n');
    for (const dir of inputDirs) rmSync(join(root, dir), { recursive: true, force: true });
    expect(staleReason(root)).toBeUndefined();
    rmSync(join(root, 'dist/admin/index.html'));
    expect(staleReason(root)).toBe('no build yet (dist/admin/index.html is missing)');
  });
});

/** `PATH` without any `node_modules/.bin` (the test runner's npm puts this checkout's there). */
const pathWithoutPackageBins = (process.env.PATH ?? '')
  .split(':')
  .filter((dir) => !dir.endsWith('node_modules/.bin'))
  .join(':');

describe('ensurePlan (prestart, prepack)', () => {
  /** Installs stand-ins for the build tools in `root/node_modules/.bin`. */
  function installTools(): void {
    for (const tool of ['cyclonedx-npm', 'tsc', 'vite']) write(`node_modules/.bin/${tool}`, '#!/bin/sh\n');
  }

  it('does nothing when the build is current, with or without the build tools', () => {
    build();
    expect(ensurePlan(root, pathWithoutPackageBins)).toEqual({ action: 'none' });
    installTools();
    expect(ensurePlan(root, pathWithoutPackageBins)).toEqual({ action: 'none' });
  });

  it('builds a missing or stale build when the build tools are installed', () => {
    installTools();
    expect(ensurePlan(root, pathWithoutPackageBins)).toEqual({ action: 'build', reason: 'no finished build recorded' });
    build();
    write('src/main.ts', 'export const a = 2;\n');
    expect(ensurePlan(root, pathWithoutPackageBins)).toEqual({ action: 'build', reason: 'sources changed since the last build' });
  });

  it('refuses with one line naming `npm run build` when the build tools are absent', () => {
    build();
    write('src/main.ts', 'export const a = 2;\n');
    write('node_modules/.bin/tsc', '#!/bin/sh\n');
    expect(missingBuildTools(root, pathWithoutPackageBins)).toEqual(['cyclonedx-npm', 'vite']);
    const plan = ensurePlan(root, pathWithoutPackageBins);
    expect(plan).toEqual({ action: 'refuse', message: expect.stringContaining('run `npm run build`') });
    expect(plan.action === 'refuse' && plan.message).toBe(
      'build-stamp: sources changed since the last build, and the build tools are not installed (cyclonedx-npm, vite not found): run `npm run build` where the dev dependencies are (npm ci), then start again',
    );
  });

  it('finds the build tools where `npm run` would: node_modules/.bin of the package or a parent, then PATH', () => {
    const nested = join(root, 'apps', 'service');
    mkdirSync(nested, { recursive: true });
    expect(missingBuildTools(nested, pathWithoutPackageBins)).toEqual(['cyclonedx-npm', 'tsc', 'vite']);
    installTools();
    expect(missingBuildTools(nested, pathWithoutPackageBins)).toEqual([]);
    rmSync(join(root, 'node_modules'), { recursive: true });
    const bin = join(root, 'elsewhere');
    for (const tool of ['cyclonedx-npm', 'tsc', 'vite']) write(`elsewhere/${tool}`, '#!/bin/sh\n');
    expect(missingBuildTools(nested, `${pathWithoutPackageBins}:${bin}`)).toEqual([]);
  });

  it('refuses in a packed artifact without a build: it has nothing to build from', () => {
    for (const dir of inputDirs) rmSync(join(root, dir), { recursive: true, force: true });
    rmSync(join(root, 'dist'), { recursive: true });
    installTools();
    const plan = ensurePlan(root, pathWithoutPackageBins);
    expect(plan.action === 'refuse' && plan.message).toMatch(
      /^build-stamp: no build yet \(dist\/src\/start\.cjs is missing\), and this package has no sources to build from: run `npm run build` in a checkout/,
    );
  });
});

describe('npm start’s prestart', () => {
  /** Runs package.json's real `prestart` in the project, with an `npm` that only records its arguments; resolves with its calls, exit status and stderr. */
  function prestart(): { calls: string[]; status: number; stderr: string } {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const bin = join(root, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$*" >> "${join(root, 'npm-calls')}"\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    let status = 0;
    let stderr = '';
    try {
      stderr = execFileSync('sh', ['-c', `${String(scripts.prestart)} 2>&1 1>/dev/null`], { cwd: root, env: { ...process.env, PATH: `${bin}:${pathWithoutPackageBins}` }, encoding: 'utf8' });
    } catch (error) {
      const failed = error as { status: number | null; stdout: string };
      status = failed.status ?? -1;
      stderr = failed.stdout;
    }
    const calls = existsSync(join(root, 'npm-calls')) ? readFileSync(join(root, 'npm-calls'), 'utf8').trim().split('\n') : [];
    rmSync(join(root, 'npm-calls'), { force: true });
    return { calls, status, stderr };
  }

  beforeEach(() => {
    symlinkSync(join(repoRoot, 'scripts'), join(root, 'scripts'));
  });

  it('runs on plain Node: builds when a source changed and skips it when nothing did', () => {
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
    expect(prestart().calls).toEqual(['run build']);
    build();
    expect(prestart()).toEqual({ calls: [], status: 0, stderr: '' });
    write('src/main.ts', 'export const a = 2;\n');
    expect(prestart().calls).toEqual(['run build']);
  }, 30_000);

  it('without the dev dependencies, starts a current build and stops on a stale one with one line', () => {
    build();
    expect(prestart()).toEqual({ calls: [], status: 0, stderr: '' });
    write('src/main.ts', 'export const a = 2;\n');
    const stale = prestart();
    expect(stale.calls).toEqual([]);
    expect(stale.status).toBe(1);
    expect(stale.stderr.trim().split('\n')).toHaveLength(1);
    expect(stale.stderr).toContain('run `npm run build`');
  }, 30_000);
});
