/**
 * One load phase with autocannon's programmatic API, in the benchmark's own process (one
 * thread, never the service's event loop). Latencies are taken from autocannon's
 * `response` events, in fractional milliseconds, because its histogram keeps whole ones.
 */
import autocannon from 'autocannon';
import type { AutocannonClient, AutocannonOptions, AutocannonRequest, AutocannonResult } from 'autocannon';

/** What to send. Exactly one of `request` and `perConnection` drives the run. */
export interface LoadSpec {
  readonly origin: string;
  readonly connections: number;
  /** The same request on every connection; `setupRequest` may make each one unique. */
  readonly request?: AutocannonRequest;
  /** Requests for connection `index` (state chained per connection, such as ETags). */
  readonly perConnection?: (index: number) => AutocannonRequest[];
  /** Most requests this phase may send (what is left in a single-use pool). */
  readonly limit?: () => number;
}

export interface PhaseResult {
  /** Seconds the phase ran. */
  readonly seconds: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Successful requests per second. */
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  /** Response bytes per second. */
  readonly bytesPerSecond: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /** The run ended because its pool of single-use requests ran out. */
  readonly exhausted: boolean;
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Runs one phase of `seconds` and summarises it. */
export function runPhase(spec: LoadSpec, seconds: number): Promise<PhaseResult> {
  const latencies: number[] = [];
  let bytes = 0;
  const amount = spec.limit?.();
  if (amount !== undefined && amount < spec.connections) throw new Error(`only ${amount} pre-built requests left for ${spec.connections} connections`);
  let next = 0;
  const options: AutocannonOptions = {
    url: spec.origin,
    connections: spec.connections,
    pipelining: 1,
    timeout: 60,
    // A stop request is noticed at the next sample; 100 ms keeps phases close to their length.
    sampleInt: 100,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    ...(spec.request ? { requests: [spec.request] } : {}),
    // The placeholder is built, never sent: setupClient swaps in the connection's own requests.
    ...(spec.perConnection ? { requests: [{ method: 'GET', path: '/' }], setupClient: (client: AutocannonClient) => client.setRequests(perConnection(spec, next++)) } : {}),
  };
  let timer: NodeJS.Timeout | undefined;
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: Error | null, result: AutocannonResult) => {
      clearTimeout(timer);
      if (error) return reject(error);
      const sorted = Float64Array.from(latencies).sort();
      const total = sorted.reduce((sum, value) => sum + value, 0);
      const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
      resolve({
        seconds: result.duration,
        ok: sorted.length,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        rps: round(sorted.length / result.duration, 1),
        p50: round(percentile(sorted, 0.5)),
        p99: round(percentile(sorted, 0.99)),
        mean: round(sorted.length ? total / sorted.length : 0),
        bytesPerSecond: Math.round(bytes / result.duration),
        statusCodes,
        exhausted: amount !== undefined && result.duration < seconds - 0.05,
      });
    });
    // With `amount` autocannon ignores `duration`, so the phase is ended here instead.
    if (amount !== undefined) timer = setTimeout(() => instance.stop(), seconds * 1000);
    instance.on('response', (_client: AutocannonClient, status: number, resBytes: number, responseTime: number) => {
      if (status >= 200 && status < 300) {
        latencies.push(responseTime);
        bytes += resBytes;
      }
    });
  });
}

function perConnection(spec: LoadSpec, index: number): AutocannonRequest[] {
  if (!spec.perConnection) throw new Error('perConnection missing');
  return spec.perConnection(index);
}
