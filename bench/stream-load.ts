/**
 * Long streaming responses, one at a time, read and counted as they arrive (autocannon is
 * made for many short requests and keeps no per-response byte counts).
 */
export interface StreamResult {
  readonly exports: number;
  readonly entriesPerExport: number;
  readonly exportsPerSecond: number;
  readonly entriesPerSecond: number;
  readonly mbPerSecond: number;
  readonly mbPerExport: number;
  /** Milliseconds per complete export. */
  readonly p50: number;
  readonly p99: number;
}

const newline = 0x0a;

/** Reads one response to the end (or until `signal` aborts); lines and bytes seen. */
async function readOne(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<{ lines: number; bytes: number }> {
  let response: Response;
  try {
    response = await fetch(url, { headers, signal });
  } catch (error) {
    if (signal.aborted) return { lines: 0, bytes: 0 };
    throw error;
  }
  if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  let lines = 0;
  let bytes = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = chunk as Uint8Array;
      bytes += buffer.byteLength;
      for (let at = buffer.indexOf(newline); at !== -1; at = buffer.indexOf(newline, at + 1)) lines += 1;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return { lines, bytes };
}

/**
 * Repeats the export for `seconds`. Measured: every started export runs to its end (at
 * least one). Warm-up (`complete` false): the one in flight is cut off at the deadline.
 */
export async function measureStreams(url: string, headers: Record<string, string>, seconds: number, complete: boolean): Promise<StreamResult> {
  const abort = new AbortController();
  const timer = complete ? undefined : setTimeout(() => abort.abort(), seconds * 1000);
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const durations: number[] = [];
  let lines = 0;
  let bytes = 0;
  let perExport = 0;
  try {
    do {
      const t0 = performance.now();
      const one = await readOne(url, headers, abort.signal);
      if (abort.signal.aborted) break;
      durations.push(performance.now() - t0);
      lines += one.lines;
      bytes += one.bytes;
      perExport = one.lines;
    } while (performance.now() < deadline);
  } finally {
    clearTimeout(timer);
  }
  const elapsed = (performance.now() - started) / 1000;
  const sorted = durations.sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0) * 10) / 10;
  return {
    exports: durations.length,
    entriesPerExport: perExport,
    exportsPerSecond: Math.round((durations.length / elapsed) * 1000) / 1000,
    entriesPerSecond: Math.round(lines / elapsed),
    mbPerSecond: Math.round((bytes / 1_048_576 / elapsed) * 100) / 100,
    mbPerExport: durations.length ? Math.round((bytes / durations.length / 1_048_576) * 100) / 100 : 0,
    p50: at(0.5),
    p99: at(0.99),
  };
}
