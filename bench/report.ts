/** The run's output: one table on stdout and a JSON file under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './child-process.js';
import type { CryptoLimitReport } from './crypto-limit.js';
import type { ScenarioResult } from './harness.js';
import type { MachineInfo } from './machine.js';
import type { BenchOptions } from './options.js';

export interface Ratio {
  readonly name: string;
  /** The ratio, or with several rounds the median of the rounds' ratios. */
  readonly value: number | null;
  readonly target: number;
  /** `at-least`: met when value ≥ target (rates, ratios); `below`: met when value < target (latencies, ms); `at-most`: met when value ≤ target (costs). */
  readonly kind: 'at-least' | 'below' | 'at-most';
  /** Judged only on this database (measured and shown on the other); absent: judged on both. */
  readonly judgedOn?: BenchOptions['database'];
  /** null when there is no value or the run's database is not the one the target is judged on. */
  readonly met: boolean | null;
  /** Each round's ratio, in order (one entry without `--repeat`). */
  readonly rounds: readonly (number | null)[];
}

export interface RunReport {
  readonly date: string;
  readonly database: BenchOptions['database'];
  readonly service: string;
  readonly loadGenerator: string;
  readonly options: Omit<BenchOptions, 'scenarios' | 'databaseUrl' | 'serviceDir'> & { readonly scenarios: readonly string[] };
  readonly machine: MachineInfo;
  readonly crypto: CryptoLimitReport | null;
  /** Each scenario's median round (by req/s); the only round without `--repeat`. */
  readonly results: readonly ScenarioResult[];
  /** Every round's results, with `--repeat`; else null. */
  readonly rounds: readonly (readonly ScenarioResult[])[] | null;
  readonly ratios: readonly Ratio[];
  readonly clusterScaling: Readonly<Record<string, number | null>>;
}

const byName = (results: readonly ScenarioResult[], name: string) => results.find((r) => r.scenario === name);
const divide = (a: number | undefined | null, b: number | undefined | null) => (a && b ? Math.round((a / b) * 100) / 100 : null);

/**
 * The crypto floor of one token as the service signs it: jose's ES256 verification plus the
 * system-libcrypto ES512 signer where this machine has it, else jose for both.
 */
export function serviceTokenFloor(crypto: CryptoLimitReport | null | undefined): number | null {
  return crypto?.tokenFloor.libcrypto?.concurrent ?? crypto?.tokenFloor.jose.concurrent ?? null;
}

/** Issue 25: `get-bearer-traced` ÷ `get-bearer` req/s, i.e. tracing adds at most 15 % per request (1 ÷ 1.15). */
export const tracingTarget = 0.87;

/**
 * Issue 16's memory figure, judged since issue 27 on the resident set after a full garbage
 * collection at the end of each scenario (bench/settled-memory.ts): the highest over the
 * run's scenarios must stay below it. Peak RSS, garbage included, is still reported.
 */
export const settledMemoryTarget = 200;

/** The highest resident set after a full collection among `results`, MB (null: none measured). */
export function highestSettledRss(results: readonly ScenarioResult[]): number | null {
  const measured = results.map((r) => r.settledRssMb).filter((mb): mb is number => typeof mb === 'number');
  return measured.length === 0 ? null : Math.max(...measured);
}

/** Issue 27: `token-bearer` ÷ `oidc-provider` req/s. */
export const tokenTarget = 2;

/** Issue 27: CPU µs the access log line adds to a request at the default level (`get-bearer` − `get-bearer-warn`). */
export const logLineTarget = 8;

/** `get-bearer`'s CPU per request less `get-bearer-warn`'s, in µs: what one access log line costs. */
export function logLineMicros(results: readonly ScenarioResult[]): number | null {
  const info = byName(results, 'get-bearer')?.cpuMsPerRequest;
  const warn = byName(results, 'get-bearer-warn')?.cpuMsPerRequest;
  return info === undefined || info === null || warn === undefined || warn === null ? null : Math.round((info - warn) * 10_000) / 10;
}

/** Whether `value` meets `target` of `kind`, on `database` (null: no value, or not judged there). */
function judge(value: number | null, target: Pick<Ratio, 'target' | 'kind' | 'judgedOn'>, database: BenchOptions['database']): boolean | null {
  if (value === null || (target.judgedOn !== undefined && target.judgedOn !== database)) return null;
  if (target.kind === 'below') return value < target.target;
  return target.kind === 'at-most' ? value <= target.target : value >= target.target;
}

/**
 * The targets: the issue's quotients of two measured rates, and the booking core's own
 * figures (docs/bookings.md "Speed"): bookings/s of one contended product (judged on SQLite) and
 * the p99 of the two availability reads (both databases).
 */
export function ratios(results: readonly ScenarioResult[], crypto: CryptoLimitReport | null, database: BenchOptions['database'] = 'sqlite'): Ratio[] {
  const tokens = byName(results, 'token-bearer')?.rps;
  const p99 = (name: string) => byName(results, name)?.p99 ?? null;
  const list: Omit<Ratio, 'met' | 'rounds'>[] = [
    { name: 'token-bearer ÷ oidc-provider', value: divide(tokens, byName(results, 'oidc-provider')?.rps), target: tokenTarget, kind: 'at-least' },
    { name: 'token-bearer ÷ crypto floor', value: divide(tokens, serviceTokenFloor(crypto)), target: 0.8, kind: 'at-least' },
    { name: 'get-bearer ÷ bare-fastify', value: divide(byName(results, 'get-bearer')?.rps, byName(results, 'bare-fastify')?.rps), target: 0.5, kind: 'at-least' },
    // Both log each request at the default level (the reference with Fastify's own logger).
    { name: 'get-bearer ÷ bare-fastify-sqlite', value: divide(byName(results, 'get-bearer')?.rps, byName(results, 'bare-fastify-sqlite')?.rps), target: 0.8, kind: 'at-least' },
    // Issue 25: tracing on costs ≤ 15 % per request, i.e. traced req/s ≥ 1 ÷ 1.15 ≈ 0.87 of untraced.
    { name: 'get-bearer-traced ÷ get-bearer', value: divide(byName(results, 'get-bearer-traced')?.rps, byName(results, 'get-bearer')?.rps), target: tracingTarget, kind: 'at-least' },
    { name: 'access log line, CPU µs', value: logLineMicros(results), target: logLineTarget, kind: 'at-most' },
    ...bookingTargets.map((t) => ({ ...t, value: t.kind === 'below' ? p99(t.scenario) : (byName(results, t.scenario)?.rps ?? null) })),
    ...sellingTargets.map(({ measure, reference: _reference, ...t }) => ({ ...t, value: sellingRatio(results, t.scenario, measure) })),
    ...latencyTargets.map(({ reference, ...t }) => ({ ...t, value: divide(p99(t.scenario), p99(reference)) })),
    { name: 'RSS MB after full GC (highest)', value: highestSettledRss(results), target: settledMemoryTarget, kind: 'below' },
  ];
  return list.map((ratio) => ({ ...ratio, met: judge(ratio.value, ratio, database), rounds: [ratio.value] }));
}

/** The booking core's targets (docs/bookings.md "Speed"), each on one scenario's req/s or p99. */
export const bookingTargets: readonly (Pick<Ratio, 'name' | 'target' | 'kind' | 'judgedOn'> & { readonly scenario: string })[] = [
  { name: 'book-contended bookings/s', scenario: 'book-contended', target: 500, kind: 'at-least', judgedOn: 'sqlite' },
  { name: 'availability-product p99 ms', scenario: 'availability-product', target: 10, kind: 'below' },
  { name: 'availability-search p99 ms', scenario: 'availability-search', target: 50, kind: 'below' },
];

/**
 * Selling a stay: a quote and an order cost at most 1.5× the service CPU of a plain booking
 * create (`book`, same products, stays and client) per successful request; ordering one
 * product from 100 connections keeps at least 0.6× `book-contended`'s successful rate. All
 * judged on SQLite (on PostgreSQL the database server's own CPU is not in the service's).
 */
export const sellingTargets: readonly (Pick<Ratio, 'name' | 'target' | 'kind' | 'judgedOn'> & {
  readonly scenario: string;
  /** The scenario the ratio divides by. */
  readonly reference: string;
  /** `cpu`: CPU ms per successful request; `rps`: successful requests per second. */
  readonly measure: 'cpu' | 'rps';
})[] = [
  { name: 'quote ÷ book, CPU per request', scenario: 'quote', reference: 'book', measure: 'cpu', target: 1.5, kind: 'at-most', judgedOn: 'sqlite' },
  { name: 'order-create ÷ book, CPU per request', scenario: 'order-create', reference: 'book', measure: 'cpu', target: 1.5, kind: 'at-most', judgedOn: 'sqlite' },
  { name: 'checkout-contended ÷ book-contended', scenario: 'checkout-contended', reference: 'book-contended', measure: 'rps', target: 0.6, kind: 'at-least', judgedOn: 'sqlite' },
];

/**
 * Issue 52: a refusal on a product with 100 000 bookings at most 10× a plain refusal's p99
 * (bench/scenarios/refuse-busy.ts); booking writes while a user with 10 000 bookings is
 * erased at most 3× their p99 without the erasure, judged on SQLite, whose one writer they
 * share (bench/scenarios/erase-under-load.ts, where both bounds are argued).
 */
export const latencyTargets: readonly (Pick<Ratio, 'name' | 'target' | 'kind' | 'judgedOn'> & { readonly scenario: string; readonly reference: string })[] = [
  { name: 'refuse-busy-366-day ÷ refuse-plain, p99', scenario: 'refuse-busy-366-day', reference: 'refuse-plain', target: 10, kind: 'at-most' },
  { name: 'refuse-busy-total-items ÷ refuse-plain, p99', scenario: 'refuse-busy-total-items', reference: 'refuse-plain', target: 10, kind: 'at-most' },
  { name: 'erase-under-load ÷ quiet, writers p99', scenario: 'erase-under-load', reference: 'erase-under-load-quiet', target: 3, kind: 'at-most', judgedOn: 'sqlite' },
];

/** A selling target's quotient: `scenario`'s CPU per request or req/s over its reference's in the same round. */
function sellingRatio(results: readonly ScenarioResult[], scenario: string, measure: 'cpu' | 'rps'): number | null {
  const target = sellingTargets.find((t) => t.scenario === scenario);
  if (!target) return null;
  const pick = (name: string) => {
    const result = byName(results, name);
    return measure === 'cpu' ? result?.cpuMsPerRequest : result?.rps;
  };
  return divide(pick(scenario), pick(target.reference));
}

/** The middle value (the lower of the two middles for an even count): a value one of the rounds measured. */
function median<T>(values: readonly T[], key: (value: T) => number): T | undefined {
  const sorted = [...values].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Each scenario's result from its median round by req/s, in the first round's order. */
export function medianResults(rounds: readonly (readonly ScenarioResult[])[]): ScenarioResult[] {
  const names = [...new Set(rounds.flatMap((round) => round.map((r) => r.scenario)))];
  return names.flatMap(
    (name) =>
      median(
        rounds.flatMap((round) => round.filter((r) => r.scenario === name)),
        (r) => r.rps,
      ) ?? [],
  );
}

/** Per target, the median of the rounds' ratios (rounds where it could not be computed are left out). */
export function medianRatios(perRound: readonly (readonly Ratio[])[], database: BenchOptions['database'] = 'sqlite'): Ratio[] {
  const first = perRound[0] ?? [];
  return first.map((ratio, i) => {
    const rounds = perRound.map((round) => round[i]?.value ?? null);
    const value =
      median(
        rounds.filter((v): v is number => v !== null),
        (v) => v,
      ) ?? null;
    return { ...ratio, value, met: judge(value, ratio, database), rounds };
  });
}

/** n workers ÷ 1 worker, per cluster workload. */
export function clusterScaling(results: readonly ScenarioResult[], workers: number): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const load of ['get-bearer', 'token-bearer']) {
    const one = byName(results, `cluster-1w ${load}`)?.rps;
    const many = byName(results, `cluster-${workers}w ${load}`)?.rps;
    if (one !== undefined || many !== undefined) out[load] = divide(many, one);
  }
  return out;
}

/**
 * What the "ratio vs reference" column says for a row. With several rounds a target's cell
 * shows the median of the rounds' ratios (`medians`), the figure the target is judged on,
 * rather than the quotient of two median rows.
 */
function ratioCell(result: ScenarioResult, results: readonly ScenarioResult[], crypto: CryptoLimitReport | null, database: BenchOptions['database'], medians?: readonly Ratio[]): string {
  const vs = (other: number | null | undefined, label: string, target?: number) => {
    const median = target === undefined ? undefined : medians?.find((r) => r.name === `${result.scenario} ÷ ${label}`);
    const value = median ? median.value : divide(result.rps, other);
    return value === null ? '' : `${value.toFixed(2)}× ${label}${median ? ' (median)' : ''}${target === undefined ? '' : ` (≥ ${target} ${value >= target ? 'met' : 'MISSED'})`}`;
  };
  const cluster = /^cluster-(\d+)w (.+)$/.exec(result.scenario);
  if (cluster && cluster[1] !== '1') return vs(byName(results, `cluster-1w ${cluster[2]}`)?.rps, '1 worker');
  switch (result.scenario) {
    case 'token-bearer':
      return [vs(byName(results, 'oidc-provider')?.rps, 'oidc-provider', tokenTarget), vs(serviceTokenFloor(crypto), 'crypto floor', 0.8)].filter(Boolean).join('; ');
    case 'get-bearer':
      return [vs(byName(results, 'bare-fastify')?.rps, 'bare-fastify', 0.5), vs(byName(results, 'bare-fastify-sqlite')?.rps, 'bare-fastify-sqlite', 0.8)].filter(Boolean).join('; ');
    case 'get-bearer-traced':
      return vs(byName(results, 'get-bearer')?.rps, 'get-bearer', tracingTarget);
    case 'get-bearer-warn': {
      const line = medians?.find((r) => r.name === 'access log line, CPU µs') ?? ratios(results, crypto, database).find((r) => r.name === 'access log line, CPU µs');
      return line?.value === null || line === undefined ? '' : `access log line (get-bearer − this): ${num(line.value, 1)} µs CPU${medians ? ' (median)' : ''} (${targetText(line)}: ${verdict(line)})`;
    }
    case 'bare-fastify-sqlite':
      return vs(byName(results, 'bare-fastify')?.rps, 'bare-fastify');
    case 'token-dpop':
      return vs(byName(results, 'token-bearer')?.rps, 'token-bearer');
    case 'get-dpop':
      return vs(byName(results, 'get-bearer')?.rps, 'get-bearer');
    case 'oidc-provider':
      return vs(crypto?.tokenFloor.jose.concurrent, 'jose crypto floor (its own crypto)');
    case 'book-contended':
    case 'availability-product':
    case 'availability-search': {
      const target =
        medians?.find((r) => bookingTargets.some((t) => t.scenario === result.scenario && t.name === r.name)) ??
        ratios(results, crypto, database).find((r) => bookingTargets.some((t) => t.scenario === result.scenario && t.name === r.name));
      return target ? `${targetText(target)}${medians ? ', median' : ''}: ${verdict(target)}` : '';
    }
    case 'calendar-export': {
      const cpu = divide(result.cpuMsPerRequest, byName(results, 'availability-product')?.cpuMsPerRequest);
      return cpu === null ? '' : `${num(cpu, 2)}× availability-product CPU/req (reported, no target)`;
    }
    case 'refuse-busy-366-day':
    case 'refuse-busy-total-items':
    case 'erase-under-load': {
      const latency = latencyTargets.find((t) => t.scenario === result.scenario);
      const target = latency && (medians ?? ratios(results, crypto, database)).find((r) => r.name === latency.name);
      if (!latency || !target || target.value === null) return '';
      return `${num(target.value, 2)}× ${latency.reference} p99${medians ? ' (median)' : ''} (${targetText(target)}: ${verdict(target)})`;
    }
    case 'quote':
    case 'order-create':
    case 'checkout-contended': {
      const selling = sellingTargets.find((t) => t.scenario === result.scenario);
      const target = selling && (medians ?? ratios(results, crypto, database)).find((r) => r.name === selling.name);
      if (!selling || !target || target.value === null) return '';
      const what = selling.measure === 'cpu' ? `${selling.reference} CPU/req` : selling.reference;
      return `${num(target.value, 2)}× ${what}${medians ? ' (median)' : ''} (${targetText(target)}: ${verdict(target)})`;
    }
    default:
      return '';
  }
}

/** `≥ 500 bookings/s` or `p99 < 10 ms`, and on which database it is judged. */
export function targetText(r: Pick<Ratio, 'target' | 'kind' | 'judgedOn'>): string {
  const where = r.judgedOn ? `, judged on ${r.judgedOn === 'sqlite' ? 'SQLite' : 'PostgreSQL'}` : '';
  return `target ${r.kind === 'below' ? '<' : r.kind === 'at-most' ? '≤' : '≥'} ${r.target}${where}`;
}

function verdict(r: Pick<Ratio, 'met'>): string {
  return r.met === null ? 'not judged here' : r.met ? 'met' : 'MISSED';
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]) => `| ${r.map((c, i) => (i >= 1 && i <= 6 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head ?? []), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const num = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function formatReport(report: RunReport): string {
  const rows: string[][] = [['scenario', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'RSS after GC MB', 'CPU ms/req', 'ratio vs reference']];
  const { crypto } = report;
  if (crypto) {
    const floor = crypto.tokenFloor;
    const ref = (label: string, value: number | null, note = '') => rows.push([label, num(value), '–', '–', '–', '–', '–', note]);
    const libcrypto = floor.libcrypto?.concurrent;
    if (libcrypto) ref(`crypto floor: token, jose ES256 + libcrypto ES512 (${crypto.concurrency} in flight)`, libcrypto, "reference (the service's signer)");
    ref(`crypto${libcrypto ? '' : ' floor'}: token, jose (${crypto.concurrency} in flight)`, floor.jose.concurrent, libcrypto ? "oidc-provider's crypto" : 'reference');
    ref('crypto: token, jose, one at a time', floor.jose.sequential);
    ref('crypto: token, node:crypto sync', floor.nodeSync.sequential);
    ref(`crypto: token, node:crypto async (${crypto.concurrency} in flight)`, floor.nodeAsync.concurrent);
    ref(`crypto: ES512 verify, jose (${crypto.concurrency} in flight)`, crypto.es512Verify.jose.concurrent, 'uncached API call');
    ref('crypto: ES512 verify, node:crypto sync', crypto.es512Verify.nodeSync.sequential);
  }
  for (const result of report.results) {
    // book-contended runs capacity out on purpose: its 409 capacity_exceeded answers are part of the design.
    const refusals = typeof result.extra.capacityRefusals === 'number' ? result.extra.capacityRefusals : 0;
    const failed = (result.phase?.non2xx ?? 0) + (result.phase?.errors ?? 0) - refusals;
    const notes = [
      ratioCell(result, report.results, crypto, report.database, report.options.repeat > 1 ? report.ratios : undefined),
      refusals > 0 ? `${refusals} × 409 capacity_exceeded (by design) not counted` : '',
      failed > 0 ? `${failed} failed requests not counted` : '',
      result.phase?.exhausted ? 'request pool ran out' : '',
    ];
    rows.push([
      result.scenario,
      num(result.rps, ['audit-export', 'calendar-export', 'calendar-import'].includes(result.scenario) ? 3 : 0),
      num(result.p50, 2),
      num(result.p99, 2),
      num(result.peakRssMb, 1),
      num(result.settledRssMb, 1),
      num(result.cpuMsPerRequest, 3),
      notes.filter(Boolean).join('; '),
    ]);
  }
  const out = [
    `Booking service benchmark — ${report.date}, ${report.database}, ${report.service}`,
    `${report.machine.cpuModel}, ${report.machine.cores} cores, ${report.machine.totalMemoryGb} GB, Node ${report.machine.node}, OpenSSL ${report.machine.openssl}, load average at start ${report.machine.loadAverageAtStart}`,
    `${report.options.duration} s measured after ${report.options.warmup} s warm-up, ${report.options.connections} connections; ${report.loadGenerator}`,
    '',
    table(rows),
  ];
  const targets = report.ratios.filter((r) => r.value !== null);
  if (targets.length > 0) {
    const repeated = report.options.repeat > 1;
    out.push('', repeated ? `Targets (median of ${report.options.repeat} rounds; the table shows each scenario's median round):` : 'Targets:');
    for (const r of targets) {
      const rounds = repeated ? `  rounds: ${r.rounds.map((v) => num(v, 2)).join(', ')}` : '';
      out.push(`  ${r.name.padEnd(30)} ${num(r.value, 2).padStart(6)}  (${targetText(r)})  ${verdict(r)}${rounds}`);
    }
  }
  const scaling = Object.entries(report.clusterScaling);
  if (scaling.length > 0) out.push('', `Cluster scaling (${report.options.workers} workers ÷ 1): ${scaling.map(([k, v]) => `${k} ${num(v, 2)}×`).join(', ')}`);
  const details = report.results.filter((r) => Object.keys(r.extra).length > 0);
  if (details.length > 0) {
    out.push('', 'Details:');
    for (const r of details)
      out.push(
        `  ${r.scenario}: ${Object.entries(r.extra)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
      );
  }
  return out.join('\n');
}

/** Writes bench/results/<date>-<database>.json and returns its path. */
export function writeReport(report: RunReport): string {
  const dir = join(repoRoot, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${report.date.replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}-${report.database}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
