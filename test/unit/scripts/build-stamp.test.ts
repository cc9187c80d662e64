import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginBuild, buildIsCurrent, finishBuild, outputs, staleReason } from '../../../scripts/build-stamp.js';
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

describe('npm start’s prestart', () => {
  /** Runs package.json's real `prestart` in the project, with an `npm` that only records its arguments. */
  function prestart(): string[] {
    const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const bin = join(root, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$*" >> "${join(root, 'npm-calls')}"\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    execFileSync('sh', ['-c', String(scripts.prestart)], { cwd: root, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }, stdio: 'pipe' });
    const calls = existsSync(join(root, 'npm-calls')) ? readFileSync(join(root, 'npm-calls'), 'utf8').trim().split('\n') : [];
    rmSync(join(root, 'npm-calls'), { force: true });
    return calls;
  }

  beforeEach(() => {
    symlinkSync(join(repoRoot, 'scripts'), join(root, 'scripts'));
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  });

  it('runs the build when a source changed and skips it when nothing did', () => {
    expect(prestart()).toEqual(['run build']);
    build();
    expect(prestart()).toEqual([]);
    write('src/main.ts', 'export const a = 2;\n');
    expect(prestart()).toEqual(['run build']);
  }, 30_000);
});
