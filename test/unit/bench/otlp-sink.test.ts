import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { countSpans, startOtlpSink } from '../../../bench/otlp-sink.js';
import { ratios } from '../../../bench/report.js';
import type { ScenarioResult } from '../../../bench/harness.js';

const span = (kind: number, startMs = 1000) => ({ traceId: 'a', spanId: 'b', name: 'x', kind, startTimeUnixNano: String(BigInt(startMs) * 1_000_000n) });
const exportRequest = {
  resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 'booking-service' }, spans: [span(2, 1000), span(1), span(3)] }, { spans: [span(2, 2000)] }] }, { scopeSpans: [] }],
};

describe('OTLP span counting (get-bearer-traced)', () => {
  it('counts every span of an OTLP/JSON export request and the server spans among them', () => {
    expect(countSpans(exportRequest)).toEqual({ spans: 4, serverSpans: 2, serverStartsMs: [1000, 2000] });
  });

  it('counts nothing in bodies that are not an export request', () => {
    expect(countSpans(null)).toEqual({ spans: 0, serverSpans: 0, serverStartsMs: [] });
    expect(countSpans({ resourceSpans: 'no' })).toEqual({ spans: 0, serverSpans: 0, serverStartsMs: [] });
    expect(countSpans([1, 2])).toEqual({ spans: 0, serverSpans: 0, serverStartsMs: [] });
  });

  it('answers 200 to POST /v1/traces, plain or gzip, and 404 elsewhere, and keeps totals', async () => {
    const sink = await startOtlpSink();
    try {
      const body = JSON.stringify(exportRequest);
      const plain = await fetch(`${sink.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const gzip = await fetch(`${sink.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(body) });
      const broken = await fetch(`${sink.endpoint}/v1/traces`, { method: 'POST', body: 'not json' });
      const elsewhere = await fetch(`${sink.endpoint}/v1/metrics`, { method: 'POST', body });
      expect([plain.status, gzip.status, broken.status, elsewhere.status]).toEqual([200, 200, 200, 404]);
      expect(sink.totals()).toEqual({ exports: 3, spans: 8, serverSpans: 4, unreadable: 1 });
      expect(sink.serverSpansStartedBetween(1000, 2000)).toBe(2);
      expect(sink.serverSpansStartedBetween(0, 3000)).toBe(4);
    } finally {
      await sink.close();
    }
  });
  it("counts the spans of the service's own exporter, which sends protobuf", async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
    const tracer = provider.getTracer('bench');
    for (const kind of [SpanKind.SERVER, SpanKind.INTERNAL, SpanKind.SERVER]) tracer.startSpan('x', { kind }, ROOT_CONTEXT).end();
    const sink = await startOtlpSink();
    try {
      const exporter = new OTLPTraceExporter({ url: `${sink.endpoint}/v1/traces` });
      const result = await new Promise<{ code: number }>((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
      await exporter.shutdown();
      expect(result.code).toBe(0);
      expect(sink.totals()).toEqual({ exports: 1, spans: 3, serverSpans: 2, unreadable: 0 });
      expect(sink.serverSpansStartedBetween(Date.now() - 60_000, Date.now() + 1)).toBe(2);
    } finally {
      await sink.close();
    }
  });
});

describe('tracing target (issue 25)', () => {
  const result = (scenario: string, rps: number): ScenarioResult => ({ scenario, rps, p50: 0, p99: 0, peakRssMb: null, cpuMsPerRequest: null, phase: null, extra: {} });
  const target = (traced: number, untraced: number) => ratios([result('get-bearer', untraced), result('get-bearer-traced', traced)], null).find((r) => r.name === 'get-bearer-traced ÷ get-bearer');

  it('is met when traced req/s is at least 0.87 of untraced (≤ 15 % more time per request)', () => {
    expect(target(870, 1000)).toMatchObject({ value: 0.87, target: 0.87, met: true });
    expect(target(860, 1000)).toMatchObject({ value: 0.86, met: false });
  });

  it('has no value without both scenarios', () => {
    expect(ratios([result('get-bearer', 1000)], null).find((r) => r.name === 'get-bearer-traced ÷ get-bearer')?.value).toBeNull();
  });
});
