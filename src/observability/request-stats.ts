import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

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
 * `observe` validate and hash the label set on every call, which cost more per request
 * than the rest of the metrics together.
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

/** The request counter, filled from `stats` at each scrape. */
export function requestCounter(stats: RequestStats, options: { name: string; help: string; registry: Registry }): Counter<Label> {
  return new Counter<Label>({
    name: options.name,
    help: options.help,
    labelNames: ['method', 'route', 'status'],
    registers: [options.registry],
    collect() {
      this.reset();
      for (const entry of stats.entries()) this.inc(entry.labels, entry.count);
    },
  });
}

type Exported = Awaited<ReturnType<Histogram<Label>['get']>>;

/** One exported line: bucket lines carry `le`, the request labels ride along as shared labels. */
interface Line {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly sharedLabels: Labels;
  readonly value: number;
  readonly metricName: string;
}

/** The request duration histogram, exported from `stats` in prom-client's own format. */
class RequestDurations extends Histogram<Label> {
  readonly #name: string;
  readonly #help: string;

  constructor(
    private readonly stats: RequestStats,
    options: { name: string; help: string; registry: Registry },
  ) {
    super({ name: options.name, help: options.help, labelNames: ['method', 'route', 'status'], buckets: [...stats.bounds], registers: [options.registry] });
    this.#name = options.name;
    this.#help = options.help;
  }

  /** What the registry renders (it prefers this method to `get`). */
  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: Line[]; aggregator: 'sum' }> {
    const values: Line[] = [];
    for (const entry of this.stats.entries()) {
      const shared = entry.labels;
      let cumulative = 0;
      this.stats.bounds.forEach((bound, index) => {
        cumulative += entry.buckets[index] ?? 0;
        values.push({ labels: { le: bound }, sharedLabels: shared, value: cumulative, metricName: `${this.#name}_bucket` });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: shared, value: entry.count, metricName: `${this.#name}_bucket` });
      values.push({ labels: {}, sharedLabels: shared, value: entry.sum, metricName: `${this.#name}_sum` });
      values.push({ labels: {}, sharedLabels: shared, value: entry.count, metricName: `${this.#name}_count` });
    }
    return Promise.resolve({ name: this.#name, help: this.#help, type: 'histogram', values, aggregator: 'sum' });
  }

  override async get(): Promise<Exported> {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values } as unknown as Exported;
  }
}

/** The request duration histogram over `stats`. */
export function requestDurations(stats: RequestStats, options: { name: string; help: string; registry: Registry }): Histogram<Label> {
  return new RequestDurations(stats, options);
}
