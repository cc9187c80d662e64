import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../bench/harness.js';
import { ratios } from '../../../bench/report.js';
import type { RunReport } from '../../../bench/report.js';
import { benchmarkTable, benchmarkTableMarkers, committedResultPaths, committedResults, latestPerTarget, withBenchmarkTable } from '../../../scripts/benchmarks-page.js';
import type { ResultsFile } from '../../../scripts/benchmarks-page.js';

const root = join(import.meta.dirname, '../../..');
const committed = committedResults(root);

const result = (scenario: string, figures: Partial<ScenarioResult>): ScenarioResult => ({
  scenario,
  rps: 0,
  p50: 0,
  p99: 0,
  peakRssMb: null,
  cpuMsPerRequest: null,
  phase: null,
  extra: {},
  ...figures,
});

/** A results file of `results` (or of `rounds`, with `--repeat`), as `npm run bench` writes it. */
function run(
  date: string,
  database: RunReport['database'],
  results: ScenarioResult[],
  more: { service?: string; suffix?: string; connections?: number; rounds?: ScenarioResult[][]; stored?: RunReport['ratios'] } = {},
): ResultsFile {
  const stamp = date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  return {
    path: `bench/results/${stamp}-${database}${more.suffix ?? ''}.json`,
    report: {
      date,
      database,
      service: more.service ?? 'node dist/src/start.cjs',
      loadGenerator: 'autocannon',
      options: {
        duration: 5,
        warmup: 2,
        connections: more.connections ?? 10,
        database,
        workers: 2,
        rows: 100_000,
        profileDir: null,
        repeat: more.rounds?.length ?? 1,
        contenders: 100,
        analyze: false,
        scenarios: [],
      },
      machine: { cpuModel: 'Intel(R) Xeon(R) Processor', cores: 2, totalMemoryGb: 23.5, platform: 'linux', node: 'v20.20.2', openssl: '3.0.19', loadAverageAtStart: 0.5 },
      crypto: null,
      results,
      rounds: more.rounds ?? null,
      ratios: more.stored ?? [],
      clusterScaling: {},
    },
  };
}

const rowsOf = (files: readonly ResultsFile[], name: string) => latestPerTarget(files).filter((row) => row.target.name === name);
const productP99 = 'availability-product p99 ms';
const contended = 'book-contended bookings/s';

describe('the targets table of BENCHMARKS.md', () => {
  it(
    committed.source === 'git'
      ? 'is the one the results files git tracks give (commit a run with `git add -f`, then `npm run docs`)'
      : 'is the one the files in bench/results give (git is not available here, so every file there counts, committed or not; run `npm run docs`)',
    () => {
      const page = readFileSync(join(root, 'BENCHMARKS.md'), 'utf8');
      expect(committed.files.length).toBeGreaterThan(0);
      expect(page).toBe(withBenchmarkTable(page, committed.files));
    },
  );

  it('sits in the first screen of BENCHMARKS.md, after one paragraph', () => {
    const page = readFileSync(join(root, 'BENCHMARKS.md'), 'utf8');
    const before = page.slice(0, page.indexOf(benchmarkTableMarkers[0]));
    expect(before.split('\n').length).toBeLessThan(15);
    expect(before).not.toMatch(/^##/m);
  });

  it('has a row for every target bench/report.ts declares', () => {
    const rows = latestPerTarget(committed.files);
    expect(new Set(rows.map((row) => row.target.name))).toEqual(new Set(ratios([], null).map((target) => target.name)));
  });

  it('takes each target from the newest run that measured it, one row per database it is judged on', () => {
    const files = [
      run('2026-11-01T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 12 })]),
      run('2026-11-03T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 7 })]),
      run('2026-11-02T10:00:00.000Z', 'postgres', [result('availability-product', { p99: 30 })]),
      run('2026-11-04T10:00:00.000Z', 'sqlite', [result('get-bearer', { rps: 100 })]),
    ];
    expect(rowsOf(files, productP99).map((row) => [row.run?.report.date, row.target.value, row.target.met])).toEqual([
      ['2026-11-03T10:00:00.000Z', 7, true],
      ['2026-11-02T10:00:00.000Z', 30, false],
    ]);
    expect(benchmarkTable(files)).toContain(
      `| ${productP99}, target < 10 | SQLite | 7 | met | [2026-11-03 10:00](bench/results/2026-11-03T10-00-00Z-sqlite.json) | Intel Xeon, 2 cores, load 0.5 | built |`,
    );
  });

  it('judges a target only on its database: a newer run on the other one does not replace it', () => {
    const files = [run('2026-11-01T10:00:00.000Z', 'sqlite', [result('book-contended', { rps: 600 })]), run('2026-11-02T10:00:00.000Z', 'postgres', [result('book-contended', { rps: 100 })])];
    expect(rowsOf(files, contended).map((row) => [row.run?.report.database, row.target.value, row.target.met])).toEqual([['sqlite', 600, true]]);
  });

  it('leaves out runs of another checkout, renamed baselines and runs under another load', () => {
    const kept = run('2026-11-01T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 9 })]);
    const files = [
      kept,
      run('2026-11-02T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 20 })], { service: 'node dist/src/start.cjs in /work/old' }),
      run('2026-11-03T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 21 })], { suffix: '-before-abc1234' }),
      run('2026-11-04T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 4 })], { connections: 1 }),
    ];
    expect(rowsOf(files, productP99).map((row) => row.run)).toEqual([kept]);
  });

  it('judges a run by today’s targets, not by the verdict stored with it', () => {
    const stored = ratios([result('token-bearer', { rps: 150 }), result('oidc-provider', { rps: 100 })], null).map((r) =>
      r.name === 'token-bearer ÷ oidc-provider' ? { ...r, target: 1.3, met: true } : r,
    );
    const files = [run('2026-11-01T10:00:00.000Z', 'sqlite', [result('token-bearer', { rps: 150 }), result('oidc-provider', { rps: 100 })], { stored })];
    const [row] = rowsOf(files, 'token-bearer ÷ oidc-provider');
    expect([row?.target.value, row?.target.target, row?.target.met]).toEqual([1.5, 2, false]);
    expect(benchmarkTable(files)).toContain('| token-bearer ÷ oidc-provider, target ≥ 2 | SQLite | 1.5 | **missed** |');
  });

  it('gives a repeated run’s median and every round’s value', () => {
    const rounds = [12, 8, 9].map((p99) => [result('availability-product', { p99 })]);
    const files = [run('2026-11-01T10:00:00.000Z', 'sqlite', [result('availability-product', { p99: 9 })], { rounds })];
    expect(benchmarkTable(files)).toContain(`| ${productP99}, target < 10 | SQLite | 9 (median of 3: 12, 8, 9) | met |`);
  });

  it('says so for a target no run measured', () => {
    expect(benchmarkTable([])).toContain(`| ${contended}, target ≥ 500, judged on SQLite | – | not measured yet |`);
  });

  it('refuses a page without its markers', () => {
    expect(() => withBenchmarkTable('# Benchmarks\n', [])).toThrow(/markers/);
  });
});

describe('the results files that count', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'benchmarks-page-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const git = (...args: string[]) => execFileSync('git', args, { cwd: scratch, stdio: 'ignore' });
  let gitAvailable = true;
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
  } catch {
    gitAvailable = false;
  }

  it(gitAvailable ? 'are the ones git tracks: a run left uncommitted changes nothing' : 'are every file in bench/results when git is not available (no git here)', () => {
    mkdirSync(join(scratch, 'bench/results'), { recursive: true });
    writeFileSync(join(scratch, 'bench/results/2026-11-01T10-00-00Z-sqlite.json'), '{}');
    writeFileSync(join(scratch, 'bench/results/notes.txt'), '');
    if (!gitAvailable) {
      expect(committedResultPaths(scratch)).toEqual({ paths: ['bench/results/2026-11-01T10-00-00Z-sqlite.json'], source: 'folder' });
      return;
    }
    // Outside a repository git fails, and the folder is read instead.
    expect(committedResultPaths(scratch)).toEqual({ paths: ['bench/results/2026-11-01T10-00-00Z-sqlite.json'], source: 'folder' });
    git('init', '--quiet');
    git('add', 'bench/results/2026-11-01T10-00-00Z-sqlite.json');
    writeFileSync(join(scratch, 'bench/results/2026-11-02T10-00-00Z-sqlite.json'), '{}');
    expect(committedResultPaths(scratch)).toEqual({ paths: ['bench/results/2026-11-01T10-00-00Z-sqlite.json'], source: 'git' });
  });
});
