/**
 * The service's memory after a full garbage collection, read at the end of a measured
 * phase: what the memory target is judged on. Peak RSS (rss-sampler.ts) also counts
 * garbage V8 has not collected yet, and how much of it V8 lets pile up depends on its
 * heap-growth heuristics, not on what the service keeps.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './child-process.js';

export interface SettledMemory {
  /** Resident set size right after the collection, bytes. */
  readonly rss: number;
  /** V8 heap in use after the collection (live objects), bytes. */
  readonly heapUsed: number;
  readonly heapTotal: number;
}

/**
 * Node flags that load bench/heap-probe.mjs into a process started by the benchmark: `gc`
 * exposed to the probe, nothing else changed. Never part of `npm start`.
 */
export const heapProbeFlags: readonly string[] = ['--expose-gc', '--import', `file://${join(repoRoot, 'bench/heap-probe.mjs')}`];

/**
 * Asks a process started with {@link heapProbeFlags} for a full collection and reads what
 * is left; null if it does not answer within `timeoutMs` (a process without the probe
 * would be killed by SIGUSR2, so only call this for one started with it).
 */
export async function settledMemory(pid: number, timeoutMs = 10_000): Promise<SettledMemory | null> {
  const file = join(tmpdir(), `bench-heap-${pid}.json`);
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const settled = JSON.parse(readFileSync(file, 'utf8')) as SettledMemory;
  rmSync(file, { force: true });
  return settled;
}
