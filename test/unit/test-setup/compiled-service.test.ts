import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileTree } from '../../support/compiled-service.js';
import type { CompileRequest } from '../../support/compiled-service.js';

// A small checkout of its own for each test: a package.json at the root, sources in two
// directories, and the builds under its .tmp/, as in the repository.
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Fixture extends CompileRequest {
  write(path: string, text: string): void;
}

function fixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'booking-compiled-service-'));
  roots.push(root);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ name: 'fixture-service', type: 'module' }));
  write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true } }));
  write('src/side-effect.ts', 'globalThis.loaded = true;\nexport const unused = 1;\n');
  write(
    'src/package-name.ts',
    [
      "import { existsSync, readFileSync } from 'node:fs';",
      "import { dirname, join } from 'node:path';",
      "import { fileURLToPath } from 'node:url';",
      '// Walks up from this module, as src/observability/package-info.ts does.',
      'export function packageName(): string {',
      '  let dir: string = dirname(fileURLToPath(import.meta.url));',
      "  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);",
      "  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;",
      '}',
    ].join('\n'),
  );
  write('src/fail.ts', 'interface Reason {\n  readonly text: string;\n}\n\nexport function fail(reason: Reason): never {\n  throw new Error(reason.text);\n}\n');
  write(
    'cli/main.ts',
    [
      "import type { Reason } from '../src/fail.js';",
      "import { fail } from '../src/fail.js';",
      "import { packageName } from '../src/package-name.js';",
      "import { unused } from '../src/side-effect.js';",
      "const reason: Reason = { text: 'asked to fail' };",
      "if (process.argv[2] === 'fail') fail(reason);",
      'console.log(JSON.stringify({ name: packageName(), loaded: (globalThis as { loaded?: boolean }).loaded === true }));',
    ].join('\n'),
  );
  write('src/start.cts', "import os = require('node:os');\nexport = { cores: os.availableParallelism() };\n");
  return { root, dirs: ['src', 'cli'], outBase: join(root, '.tmp', 'compiled'), tsconfig: join(root, 'tsconfig.json'), write };
}

describe('compileTree (test/support/compiled-service.ts)', () => {
  it('compiles file for file into a directory named by the digest, and reuses it on the next call', () => {
    const request = fixture();
    const first = compileTree(request);
    expect(first).toMatchObject({ dir: join(request.root, '.tmp', 'compiled', first.digest), built: true });
    expect(readdirSync(join(first.dir, 'src')).sort()).toEqual(['fail.js', 'package-name.js', 'side-effect.js', 'start.cjs']);
    expect(readdirSync(request.outBase), 'no staging directory left behind').toEqual([first.digest]);
    expect(compileTree(request)).toEqual({ ...first, built: false });
  });

  it('runs from the build: modules are ESM, .cts is CommonJS, the package.json above is found, value imports are kept', () => {
    const { dir } = compileTree(fixture());
    const out = execFileSync(process.execPath, [join(dir, 'cli', 'main.js')], { encoding: 'utf8' });
    // `unused` is never read: only verbatimModuleSyntax keeps its import, and with it the side effect.
    expect(JSON.parse(out)).toEqual({ name: 'fixture-service', loaded: true });
    const cores = execFileSync(process.execPath, ['-p', `require(${JSON.stringify(join(dir, 'src', 'start.cjs'))}).cores > 0`], { encoding: 'utf8' });
    expect(cores.trim()).toBe('true');
  });

  it('names the .ts source lines in stack traces (with --enable-source-maps)', () => {
    const request = fixture();
    const { dir } = compileTree(request);
    const run = spawnSync(process.execPath, ['--enable-source-maps', join(dir, 'cli', 'main.js'), 'fail'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('asked to fail');
    expect(run.stderr).toContain(`${join(request.root, 'src', 'fail.ts')}:6:`);
    expect(run.stderr).toContain(`${join(request.root, 'cli', 'main.ts')}:6:`);
  });

  it('builds anew when a file changes, is added or is renamed, and when the compiler options change', () => {
    const request = fixture();
    const { write } = request;
    const digests = new Set([compileTree(request).digest]);
    const changes: (() => void)[] = [
      () => write('src/side-effect.ts', 'globalThis.loaded = true;\nexport const unused = 2;\n'),
      () => write('src/extra.ts', 'export {};\n'),
      () => {
        rmSync(join(request.root, 'src', 'extra.ts'));
        write('cli/extra.ts', 'export {};\n');
      },
      () => write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022' } })),
    ];
    for (const change of changes) {
      change();
      const next = compileTree(request);
      expect(next.built).toBe(true);
      expect(digests.has(next.digest)).toBe(false);
      expect(existsSync(join(next.dir, 'cli', 'main.js'))).toBe(true);
      digests.add(next.digest);
    }
  });

  it('removes builds nobody has used for an hour when it makes a new one, and keeps the rest', () => {
    const request = fixture();
    const used = compileTree(request);
    const abandoned = join(request.outBase, 'abandoned');
    mkdirSync(abandoned);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
    utimesSync(used.dir, twoHoursAgo, twoHoursAgo);
    // Reusing a build marks it as used again.
    expect(compileTree(request).built).toBe(false);
    request.write('src/extra.ts', 'export {};\n');
    expect(compileTree(request).built).toBe(true);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(used.dir)).toBe(true);
  });
});
