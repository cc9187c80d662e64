/**
 * Load for the scenarios that time answers autocannon does not keep: it records the
 * latencies of 2xx answers only, and `refuse-busy` times refusals (409) while
 * `erase-under-load` times the writes that overlap one erasure. `connections` loops send at
 * once, each waiting for its answer before the next (fetch keeps the connections alive),
 * until stopped; every answer is kept with its status and when it was sent.
 */
import { cpuSeconds } from '../cpu-time.js';
import type { ScenarioResult } from '../harness.js';

/** One answer: when its request was sent (`performance.now()`), how long it took, its status. */
export interface Timed {
  readonly sentAt: number;
  readonly ms: number;
  readonly status: number;
}

/** A running load: `stop` ends it once the requests in flight are answered, and gives every answer. */
export interface RunningLoad {
  stop(): Promise<Timed[]>;
}

/** Starts `connections` loops of `send`; each answer's body is read to its end. */
export function startLoad(connections: number, send: () => Promise<Response>): RunningLoad {
  let running = true;
  const answers: Timed[] = [];
  const loop = async () => {
    while (running) {
      const sentAt = performance.now();
      const response = await send();
      await response.arrayBuffer();
      answers.push({ sentAt, ms: performance.now() - sentAt, status: response.status });
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/** `send` from `connections` loops for `seconds`; the answers. */
export async function loadFor(connections: number, seconds: number, send: () => Promise<Response>): Promise<Timed[]> {
  const load = startLoad(connections, send);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return load.stop();
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function percentile(sorted: readonly number[], q: number): number {
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0);
}

/**
 * A scenario's row from `answers` of one phase of `seconds`: req/s, p50 and p99 of the answers
 * with the `expected` status (the others are counted by status in `extra`), and the server's
 * CPU per expected answer when `cpu` holds its CPU seconds before and after.
 */
export function timedResult(
  scenario: string,
  answers: readonly Timed[],
  expected: number,
  seconds: number,
  cpu: { before: number | null; after: number | null },
  extra: ScenarioResult['extra'] = {},
): ScenarioResult {
  const times = answers
    .filter((a) => a.status === expected)
    .map((a) => a.ms)
    .sort((a, b) => a - b);
  const others: Record<string, number> = {};
  for (const answer of answers) if (answer.status !== expected) others[`status${answer.status}`] = (others[`status${answer.status}`] ?? 0) + 1;
  const cpuMs = cpu.before === null || cpu.after === null || times.length === 0 ? null : round(((cpu.after - cpu.before) * 1000) / times.length, 3);
  return {
    scenario,
    rps: round(times.length / seconds, 1),
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    peakRssMb: null,
    cpuMsPerRequest: cpuMs,
    phase: null,
    extra: { answers: times.length, expectedStatus: expected, ...others, ...extra },
  };
}

/** The service's CPU seconds so far (null off Linux). */
export const serviceCpu = (pid: number): number | null => cpuSeconds([pid]);
