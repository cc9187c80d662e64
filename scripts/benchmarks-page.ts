import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parseOptions } from '../bench/options.js';
import { medianRatios, ratios, targetText } from '../bench/report.js';
import type { Ratio, RunReport } from '../bench/report.js';

/** Start and end markers of the generated part of BENCHMARKS.md. */
export const benchmarkTableMarkers = ['<!-- benchmark-targets:start (npm run docs; scripts/benchmarks-page.ts) -->', '<!-- benchmark-targets:end -->'] as const;

/** Where `npm run bench` writes its results; a file counts once it is committed (`git add -f`: the folder is git-ignored). */
export const resultsFolder = 'bench/results';

/** A results file: its path from the repository root and what the run wrote into it. */
export interface ResultsFile {
  readonly path: string;
  readonly report: RunReport;
}

/**
 * The results files that count: those git tracks, so a run left uncommitted in the folder
 * changes nothing. Without git (an unpacked archive has no untracked results) every file
 * of the folder counts, and `source` says so.
 */
export function committedResultPaths(root: string): { readonly paths: string[]; readonly source: 'git' | 'folder' } {
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--', resultsFolder], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    const paths = readdirSync(join(root, resultsFolder)).map((name) => posix.join(resultsFolder, name));
    return { paths: paths.filter((path) => path.endsWith('.json')).sort(), source: 'folder' };
  }
  return {
    paths: listed
      .split('\0')
      .filter((path) => path.endsWith('.json'))
      .sort(),
    source: 'git',
  };
}

export function readResultsFiles(root: string, paths: readonly string[]): ResultsFile[] {
  return paths.map((path) => ({ path, report: JSON.parse(readFileSync(join(root, path), 'utf8')) as RunReport }));
}

/** The committed results files of the checkout at `root`, read, and where their list came from. */
export function committedResults(root: string): { readonly files: ResultsFile[]; readonly source: 'git' | 'folder' } {
  const { paths, source } = committedResultPaths(root);
  return { files: readResultsFiles(root, paths), source };
}

/**
 * Whether a run measured what the targets are about: this repository's service, not another
 * checkout's (`--service` labels the run `… in <dir>`) nor a baseline renamed by hand
 * (`<date>-<database>-before-<commit>.json`), under the default load (a target is stated at
 * the default connections and contenders, on a SQLite file without `--analyze`).
 */
export function countsForTargets(file: ResultsFile): boolean {
  const name = posix.basename(file.path);
  const defaults = parseOptions([], {});
  const { connections, contenders = defaults.contenders, analyze = defaults.analyze } = file.report.options;
  return (
    /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-(?:sqlite|postgres)\.json$/.test(name) &&
    !/ in \S+$/.test(file.report.service) &&
    connections === defaults.connections &&
    contenders === defaults.contenders &&
    analyze === defaults.analyze
  );
}

/**
 * A run's targets judged again by today's definitions (bench/report.ts), from the figures it
 * stored: a target whose bound changed since is not judged by the old bound. With
 * `--repeat`, each target's value is the median of its rounds, as `npm run bench` prints it.
 */
export function judgedTargets(report: RunReport): Ratio[] {
  const rounds = report.rounds ?? [report.results];
  return medianRatios(
    rounds.map((round) => ratios(round, report.crypto, report.database)),
    report.database,
  );
}

export interface TargetRow {
  readonly target: Ratio;
  /** The newest run that measured the target on its database; undefined: no run did. */
  readonly run?: ResultsFile;
}

const databases: readonly RunReport['database'][] = ['sqlite', 'postgres'];

/**
 * Every target of bench/report.ts, in its order, with the newest run that judged it on each
 * database it is judged on (a target judged on both can be met on one and missed on the
 * other); one row without a run for a target no run judged.
 */
export function latestPerTarget(files: readonly ResultsFile[]): TargetRow[] {
  const newestFirst = files.filter(countsForTargets).sort((a, b) => b.report.date.localeCompare(a.report.date));
  const judged = newestFirst.map((run) => ({ run, targets: judgedTargets(run.report) }));
  return ratios([], null).flatMap((unmeasured) => {
    const rows = databases.flatMap((database) => {
      for (const { run, targets } of judged) {
        if (run.report.database !== database) continue;
        const target = targets.find((t) => t.name === unmeasured.name);
        if (target && target.value !== null && target.met !== null) return [{ target, run }];
      }
      return [];
    });
    return rows.length > 0 ? rows : [{ target: unmeasured }];
  });
}

const number = (value: number | null) => (value === null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: 2 }));

/** "Intel(R) Xeon(R) Processor" → "Intel Xeon". */
const cpuName = (model: string) =>
  model
    .replace(/\((?:R|TM)\)|\bCPU\b|\bProcessor\b|@.*$/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function row({ target, run }: TargetRow): string {
  const what = `${target.name}, ${targetText(target)}`;
  if (!run) return `| ${what} | – | not measured yet | – | – | – | – |`;
  const { report } = run;
  const rounds = target.rounds.length > 1 ? ` (median of ${target.rounds.length}: ${target.rounds.map(number).join(', ')})` : '';
  const date = `[${report.date.slice(0, 16).replace('T', ' ')}](${run.path})`;
  const machine = `${cpuName(report.machine.cpuModel)}, ${report.machine.cores} cores, load ${report.machine.loadAverageAtStart.toFixed(1)}`;
  const service = report.service.includes('(tsx)') ? 'sources (tsx)' : 'built';
  const database = report.database === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return `| ${what} | ${database} | ${number(target.value)}${rounds} | ${target.met ? 'met' : '**missed**'} | ${date} | ${machine} | ${service} |`;
}

/** The generated table, markers included. */
export function benchmarkTable(files: readonly ResultsFile[]): string {
  return [
    benchmarkTableMarkers[0],
    '| Target | Database | Last value | Verdict | Run (UTC) | Machine | Service |',
    '|---|---|---|---|---|---|---|',
    ...latestPerTarget(files).map(row),
    benchmarkTableMarkers[1],
  ].join('\n');
}

/** `markdown` (BENCHMARKS.md) with its generated part replaced by the table of `files`. */
export function withBenchmarkTable(markdown: string, files: readonly ResultsFile[]): string {
  const [start, end] = benchmarkTableMarkers;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error('BENCHMARKS.md lost its benchmark-targets markers');
  return `${markdown.slice(0, from)}${benchmarkTable(files)}${markdown.slice(to + end.length)}`;
}
