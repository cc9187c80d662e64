import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lanes } from '../../lanes.js';
import type { Lane } from '../../lanes.js';
import { repoRoot } from '../../support/repo-root.js';

// Support modules that reach PostgreSQL or build the whole app: never in the unit lane.
const databaseHelpers = ['databases', 'harness', 'auth-harness', 'timeout-harness', 'storage-app', 'listening-service', 'global-setup'];
// Support modules that start real processes: only in the system lane.
const processHelpers = ['postgres-cluster', 'server-process', 'nginx', 'redis-server', 'pgbouncer', 'browser', 'admin-bundle', 'run-cli', 'prism-proxy'];

function testFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// test/lanes.ts keeps to two pattern shapes, so this test can match them without a glob library.
function matches(pattern: string, file: string): boolean {
  const tree = /^(.+)\/\*\*\/\*\.test\.ts$/.exec(pattern);
  if (tree) return file.startsWith(`${tree[1]}/`);
  if (pattern.includes('*')) throw new Error(`test/lanes.ts: use "dir/**/*.test.ts" or an exact path, not ${pattern}`);
  return file === pattern;
}

function laneOf(file: string): Lane {
  if (lanes.system.some((p) => matches(p, file))) return 'system';
  if (lanes.unit.some((p) => matches(p, file))) return 'unit';
  return 'api';
}

/** The repository files `file` loads at run time (type-only imports do not), transitively. */
function loads(file: string, seen = new Set<string>()): Set<string> {
  const source = readFileSync(join(repoRoot, file), 'utf8');
  for (const match of source.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm)) {
    const target = relative(repoRoot, join(repoRoot, dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')))
      .split('\\')
      .join('/');
    if (seen.has(target) || !target.startsWith('test/')) {
      seen.add(target);
      continue;
    }
    seen.add(target);
    loads(target, seen);
  }
  return seen;
}

const supportModules = (file: string) => [...loads(file)].filter((p) => p.startsWith('test/support/')).map((p) => posix.basename(p, '.ts'));
const files = testFiles('test');

describe('test lanes (test/lanes.ts)', () => {
  it('puts every listed file somewhere that exists', () => {
    for (const pattern of [...lanes.unit, ...lanes.system]) {
      expect(
        files.some((file) => matches(pattern, file)),
        `${pattern} matches no test file`,
      ).toBe(true);
    }
  });

  it.each(files.filter((file) => laneOf(file) === 'unit'))('keeps %s free of PostgreSQL, the app harness and processes', (file) => {
    const used = supportModules(file).filter((name) => databaseHelpers.includes(name) || processHelpers.includes(name));
    expect(used, `${file} uses ${used.join(', ')}: list it in the api or system lane`).toEqual([]);
    // Compiling SQL for PostgreSQL is pure; connecting to it is not.
    const connects = readFileSync(join(repoRoot, file), 'utf8').match(/\bopenPostgres\(|\binject\(\s*'postgresUrl'|\bnew (?:pg\.)?(?:Pool|Client)\(/g) ?? [];
    expect(connects, `${file} connects to PostgreSQL: it belongs in the api lane`).toEqual([]);
  });

  it.each(files.filter((file) => laneOf(file) === 'api'))('keeps %s free of real processes', (file) => {
    const used = supportModules(file).filter((name) => processHelpers.includes(name));
    expect(used, `${file} starts processes through ${used.join(', ')}: list it under system in test/lanes.ts`).toEqual([]);
  });

  // The unit and api lanes share one module graph per worker (vitest.config.ts): a module
  // mock or a stubbed global or environment would outlive its file and reach the next one.
  it.each(files.filter((file) => laneOf(file) !== 'system'))('leaves no module mock or stubbed global behind %s', (file) => {
    const leaks = readFileSync(join(repoRoot, file), 'utf8').match(/\bvi\.(?:mock|doMock|stubGlobal|stubEnv)\(/g) ?? [];
    expect(leaks, `${file} mocks a module or stubs a global: the next file of its worker would inherit it`).toEqual([]);
  });

  it.each(files.filter((file) => laneOf(file) === 'system'))('has a reason to keep %s in the slow lane', (file) => {
    const used = supportModules(file).filter((name) => processHelpers.includes(name));
    const spawns = /from 'node:child_process'/.test(readFileSync(join(repoRoot, file), 'utf8'));
    expect(used.length > 0 || spawns, `${file} starts no process: move it to the api lane`).toBe(true);
  });
});
