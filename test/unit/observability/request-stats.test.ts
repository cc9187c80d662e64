import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestStats, requestMetricsRegistry } from '../../../src/observability/request-stats.js';

const bounds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const observations: [string, string, number, number][] = [
  ['GET', '/v1/products/:id', 200, 0.0012],
  ['GET', '/v1/products/:id', 200, 0.005],
  ['GET', '/v1/products/:id', 200, 0.03],
  ['GET', '/v1/products/:id', 404, 0.01],
  ['POST', '/v1/products', 201, 0.2],
  ['GET', 'unmatched', 404, 12],
  ['GET', '/v1/products/:id', 200, 10],
];

/** Sorted lines, so that only the order of label sets may differ between the two registries. */
async function lines(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').sort();
}

describe('request stats render exactly what prom-client renders for the same requests', () => {
  it("before any request: the two metrics' HELP and TYPE lines, no samples", async () => {
    const reference = new Registry();
    new Counter({ name: 'http_requests_total', help: 'requests', labelNames: ['method'], registers: [reference] });
    new Histogram({ name: 'http_request_duration_seconds', help: 'durations', labelNames: ['method'], registers: [reference] });
    const names = { counter: { name: 'http_requests_total', help: 'requests' }, histogram: { name: 'http_request_duration_seconds', help: 'durations' } };
    expect(await lines(requestMetricsRegistry(new RequestStats(bounds), names))).toEqual(await lines(reference));
  });

  it('counter and histogram text (bucket edges inclusive, above the last bound only in +Inf)', async () => {
    const stats = new RequestStats(bounds);
    const names = { counter: { name: 'http_requests_total', help: 'requests' }, histogram: { name: 'http_request_duration_seconds', help: 'durations' } };
    const ours = () => requestMetricsRegistry(stats, names);
    const reference = new Registry();
    const labelNames = ['method', 'route', 'status'] as const;
    const counter = new Counter({ name: 'http_requests_total', help: 'requests', labelNames, registers: [reference] });
    const histogram = new Histogram({ name: 'http_request_duration_seconds', help: 'durations', labelNames, buckets: bounds, registers: [reference] });
    for (const [method, route, status, seconds] of observations) {
      stats.observe(method, route, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route, status: String(status) }, seconds);
    }
    expect(await lines(ours())).toEqual(await lines(reference));
    // Scraping twice does not count twice.
    expect(await lines(ours())).toEqual(await lines(reference));
    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map((m) => ({
        ...m,
        values: m.values.map(({ labels, value, metricName }: { labels: object; value: number; metricName?: string }) => ({ labels, value, metricName })),
      }));
    expect(await json(ours())).toEqual(await json(reference));
  });
});

describe('prom-client is used through its public API only', () => {
  it('no source file subclasses its metrics or registry, or reaches for their internals', () => {
    const root = join(import.meta.dirname, '../../../src');
    const offending = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .filter((name) => /\bextends (Counter|Gauge|Histogram|Summary|Registry)\b|getForPromString|\.hashMap\b|\._metrics\b/.test(readFileSync(join(root, name), 'utf8')));
    expect(offending).toEqual([]);
  });
});
