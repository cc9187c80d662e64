import { AggregatorRegistry } from 'prom-client';
import type { PrometheusContentType, Registry } from 'prom-client';

type Label = 'method' | 'route' | 'status';
type Labels = Readonly<Record<Label, string>>;

interface Entry {
  readonly labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly buckets: number[];
}

/**
 * Request counts and durations by method, route pattern and status, kept in nested maps
 * and handed to prom-client only when `/metrics` is scraped. prom-client's own `inc` and
 * `observe` validate and hash the label set on every call, which cost
 * more per request than the rest of the metrics together.
 */
export class RequestStats {
  readonly #routes = new Map<string, Map<string, Map<number, Entry>>>();

  constructor(readonly bounds: readonly number[]) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#routes.get(route);
    if (!byMethod) this.#routes.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let entry = byStatus.get(status);
    if (!entry) {
      entry = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0) };
      byStatus.set(status, entry);
    }
    entry.count += 1;
    entry.sum += seconds;
    let slot = 0;
    while (slot < this.bounds.length && seconds > (this.bounds[slot] ?? Infinity)) slot += 1;
    entry.buckets[slot] = (entry.buckets[slot] ?? 0) + 1;
  }

  *entries(): Iterable<Readonly<Entry>> {
    for (const byMethod of this.#routes.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }
}

/** A metric as `Registry.getMetricsAsJSON()` gives it, the form `AggregatorRegistry.aggregate` reads. */
interface MetricJson {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: readonly { readonly labels: Readonly<Record<string, string | number>>; readonly value: number; readonly metricName?: string }[];
}

/**
 * The request counter and duration histogram as of now, as a registry of their own for
 * `Metrics.render` to merge with the others. prom-client's public API has no way to hand a
 * histogram its bucket counts, so they go in as prom-client's metric JSON (what a `Counter`
 * and a `Histogram` with these observations report) through `AggregatorRegistry.aggregate`,
 * its public constructor of a registry from such JSON; prom-client writes the exposition.
 */
export function requestMetricsRegistry(stats: RequestStats, names: { readonly counter: MetricName; readonly histogram: MetricName }): Registry<PrometheusContentType> {
  return AggregatorRegistry.aggregate<PrometheusContentType>([metricsJson(stats, names)]);
}

/** The two metrics in prom-client's JSON form (`Registry.getMetricsAsJSON()`). */
function metricsJson(stats: RequestStats, names: { readonly counter: MetricName; readonly histogram: MetricName }): MetricJson[] {
  const counts: MetricJson['values'][number][] = [];
  const durations: MetricJson['values'][number][] = [];
  const bucket = `${names.histogram.name}_bucket`;
  for (const entry of stats.entries()) {
    const labels = entry.labels;
    counts.push({ labels, value: entry.count });
    let cumulative = 0;
    stats.bounds.forEach((le, index) => {
      cumulative += entry.buckets[index] ?? 0;
      durations.push({ labels: { le, ...labels }, value: cumulative, metricName: bucket });
    });
    durations.push({ labels: { le: '+Inf', ...labels }, value: entry.count, metricName: bucket });
    durations.push({ labels, value: entry.sum, metricName: `${names.histogram.name}_sum` });
    durations.push({ labels, value: entry.count, metricName: `${names.histogram.name}_count` });
  }
  return [
    { ...names.counter, type: 'counter', aggregator: 'sum', values: counts },
    { ...names.histogram, type: 'histogram', aggregator: 'sum', values: durations },
  ];
}

/** A metric's name and help text. */
export interface MetricName {
  readonly name: string;
  readonly help: string;
}
