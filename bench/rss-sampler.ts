/**
 * Peak resident memory of some processes added up (the service, or a cluster primary and
 * its workers), polled from /proc every 100 ms. For a single process the kernel's own peak
 * (VmHWM, reset at start through clear_refs) is also read, so a spike between two polls
 * is not missed. Linux only; elsewhere the peak is reported as null.
 */
import { readFileSync, writeFileSync } from 'node:fs';

function statusValue(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // the process ended between listing and reading
  }
}

/** Current resident set size of `pid` in bytes (0 when unknown). */
export function residentBytes(pid: number): number {
  return statusValue(pid, 'VmRSS');
}

/** `pid` and all its descendants. */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i += 1) {
    const current = all[i] ?? pid;
    try {
      const children = readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim();
      if (children) all.push(...children.split(/\s+/).map(Number));
    } catch {
      // gone, or no /proc/<pid>/task/<pid>/children on this kernel
    }
  }
  return all;
}

export class RssSampler {
  #peak = 0;
  #timer: NodeJS.Timeout | undefined;
  #supported = true;

  /** `pids` lists the processes to add up, polled each time (cluster workers may change). */
  constructor(private readonly pids: () => readonly number[]) {}

  start(): void {
    try {
      // "5" resets VmHWM to the current RSS (proc(5), clear_refs).
      for (const pid of this.pids()) writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      this.#supported = process.platform === 'linux';
    }
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), 100);
  }

  /** Stops sampling; the peak in bytes, or null where /proc is not available. */
  stop(): number | null {
    clearInterval(this.#timer);
    this.#sample();
    const [only, ...others] = this.pids();
    if (only !== undefined && others.length === 0) this.#peak = Math.max(this.#peak, statusValue(only, 'VmHWM'));
    return this.#supported && this.#peak > 0 ? this.#peak : null;
  }

  #sample(): void {
    let total = 0;
    for (const pid of this.pids()) total += statusValue(pid, 'VmRSS');
    this.#peak = Math.max(this.#peak, total);
  }
}
