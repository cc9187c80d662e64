/**
 * Runs a scenario against a freshly started service: start (one process, or a cluster),
 * prepare (tokens, pools), then warm-up and measured load while the service's peak RSS is
 * sampled, then stop. A fresh process per scenario keeps one scenario's caches and heap
 * out of the next one's memory figure.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../src/config/config.js';
import type { CryptoLimitReport } from './crypto-limit.js';
import { repoRoot, startNode } from './child-process.js';
import type { ServerProcess } from './child-process.js';
import type { Fixtures } from './fixtures.js';
import { runPhase } from './load.js';
import type { LoadSpec, PhaseResult } from './load.js';
import type { BenchOptions } from './options.js';
import { cpuSeconds } from './cpu-time.js';
import { processTree, RssSampler } from './rss-sampler.js';
import { heapProbeFlags, settledMemory } from './settled-memory.js';
import type { SettledMemory } from './settled-memory.js';
import type { ServiceEntry } from './service-entry.js';

export interface BenchContext {
  readonly options: BenchOptions;
  /** The service's configuration, for seeding the same storage before it starts. */
  readonly config: Config;
  readonly fixtures: Fixtures;
  /** `PUBLIC_URL` of the service. */
  readonly origin: string;
  readonly tokenEndpoint: string;
  readonly serviceEnv: Readonly<Record<string, string | undefined>>;
  readonly entry: ServiceEntry;
  /** Measured before the scenarios; bounds how many single-use requests a pool needs. */
  readonly crypto: CryptoLimitReport | undefined;
  /** Where the server under test writes its log lines (stdout), emptied at each start. */
  readonly logFile: string;
}

export interface ScenarioResult {
  readonly scenario: string;
  /** Successful requests per second. */
  readonly rps: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly peakRssMb: number | null;
  /**
   * Resident set after a full garbage collection at the end of the measured phase: the
   * figure the memory target is judged on (null: not measured, e.g. a cluster).
   */
  readonly settledRssMb?: number | null;
  /** V8 heap in use after that collection. */
  readonly settledHeapMb?: number | null;
  /**
   * Server CPU time (all threads, user + system) per successful request, in ms: less
   * sensitive than req/s to other load on the machine; null where /proc is missing.
   */
  readonly cpuMsPerRequest: number | null;
  /** The measured phase in full (null for scenarios measured otherwise). */
  readonly phase: PhaseResult | null;
  /** Scenario-specific numbers (seeding time, entries/s, pool sizes, …). */
  readonly extra: Readonly<Record<string, number | string | boolean | null>>;
}

/** What a scenario sends, and what must happen before each phase (warm-up, measurement). */
export interface Prepared {
  readonly spec: LoadSpec;
  readonly beforePhase?: () => Promise<void>;
  readonly extra?: Readonly<Record<string, number | string | boolean | null>>;
}

export const toMb = (bytes: number | null) => (bytes === null ? null : Math.round((bytes / 1_048_576) * 10) / 10);

/** A service the benchmark started; a single process can report its memory after a full collection. */
export interface ServiceProcess extends ServerProcess {
  readonly settle?: () => Promise<SettledMemory | null>;
}

/** Starts the service (or a cluster of `workers`) and waits for `/ready`. */
export async function startService(ctx: BenchContext, workers?: number): Promise<ServiceProcess> {
  const { entry } = ctx;
  const server: ServiceProcess =
    workers === undefined
      ? withSettle(startNode([...entry.execArgv, ...heapProbeFlags, entry.script], { ...ctx.serviceEnv, ...entry.env }, ctx.origin, ctx.logFile))
      : startNode(
          ['--import', 'tsx', join(repoRoot, 'bench/cluster-main.ts')],
          { ...ctx.serviceEnv, ...entry.env, BENCH_WORKERS: String(workers), BENCH_ENTRY: entry.script, BENCH_EXEC_ARGV: JSON.stringify(entry.execArgv) },
          ctx.origin,
          ctx.logFile,
        );
  try {
    await server.waitReady('/ready');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

function withSettle(server: ServerProcess): ServiceProcess {
  return { ...server, settle: () => settledMemory(server.pid) };
}

/** The settled-memory fields of a result. */
export function settledFields(settled: SettledMemory | null | undefined): Pick<ScenarioResult, 'settledRssMb' | 'settledHeapMb'> {
  return { settledRssMb: toMb(settled?.rss ?? null), settledHeapMb: toMb(settled?.heapUsed ?? null) };
}

const fileSize = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;

/**
 * Warm-up and measured phase against `server` while sampling the RSS of `pids`; then,
 * with `settle`, the memory left after a full collection. With `logFile` (the server's
 * stdout) the bytes it logged per measured request are reported.
 */
export async function measure(
  ctx: BenchContext,
  name: string,
  prepared: Prepared,
  pids: () => readonly number[],
  settle?: () => Promise<SettledMemory | null>,
  logFile?: string,
): Promise<ScenarioResult> {
  const sampler = new RssSampler(pids);
  sampler.start();
  let phase: PhaseResult;
  let peak: number | null;
  let cpuMs: number | null = null;
  let logBytes: number | null = null;
  try {
    if (ctx.options.warmup > 0) {
      await prepared.beforePhase?.();
      await runPhase(prepared.spec, ctx.options.warmup);
    }
    await prepared.beforePhase?.();
    const cpuBefore = cpuSeconds(pids());
    const logBefore = logFile === undefined ? 0 : fileSize(logFile);
    phase = await runPhase(prepared.spec, ctx.options.duration);
    const cpuAfter = cpuSeconds(pids());
    if (logFile !== undefined) logBytes = fileSize(logFile) - logBefore;
    cpuMs = cpuBefore === null || cpuAfter === null || phase.ok === 0 ? null : Math.round(((cpuAfter - cpuBefore) * 1000 * 10_000) / phase.ok) / 10_000;
  } finally {
    peak = sampler.stop();
  }
  const settled = await settle?.();
  if (phase.non2xx > 0 || phase.errors > 0) console.error(`  ${name}: ${phase.non2xx} non-2xx, ${phase.errors} errors (status codes ${JSON.stringify(phase.statusCodes)})`);
  if (phase.exhausted) console.error(`  ${name}: the pre-built request pool ran out after ${phase.seconds} s; raise the pool or shorten --duration`);
  // Lines reach the file in batches, so this is exact to a batch (a few KB) over the phase.
  const logged: Record<string, number> = logBytes === null || phase.ok === 0 ? {} : { logBytesPerRequest: Math.round(logBytes / phase.ok) };
  return { scenario: name, rps: phase.rps, p50: phase.p50, p99: phase.p99, peakRssMb: toMb(peak), ...settledFields(settled), cpuMsPerRequest: cpuMs, phase, extra: { ...prepared.extra, ...logged } };
}

/** The common case: one service process, prepared and measured, then stopped. */
export async function runAgainstService(ctx: BenchContext, name: string, prepare: () => Promise<Prepared>, workers?: number): Promise<ScenarioResult> {
  const server = await startService(ctx, workers);
  try {
    const prepared = await prepare();
    const pids = workers === undefined ? () => [server.pid] : () => processTree(server.pid);
    return await measure(ctx, name, prepared, pids, server.settle, ctx.logFile);
  } finally {
    await server.stop();
  }
}

/** Pool size for `bound` requests per second over warm-up and measurement, with headroom. */
export function poolSize(ctx: BenchContext, bound: number): number {
  const seconds = ctx.options.warmup + ctx.options.duration;
  return Math.min(1_000_000, Math.ceil(bound * seconds * 1.5) + 4 * ctx.options.connections + 100);
}
