import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { AlwaysOnSampler, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTraceExport } from '../../support/otlp-protobuf.js';
import type { OtlpJsonExport } from '../../support/otlp-protobuf.js';

/** What a receiver got: the content type and the raw body of each export. */
const received: { contentType: string | undefined; body: Buffer }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
const listening = new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`)));
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends `spans` with `exporter` and answers the body the receiver got. */
async function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ contentType: string | undefined; body: Buffer }> {
  const before = received.length;
  const result = await new Promise<{ code: number }>((resolve) => exporter.export(spans, resolve));
  expect(result.code).toBe(0);
  await exporter.shutdown();
  const got = received[before];
  if (!got) throw new Error('nothing received');
  return got;
}

/** The fields the reader decodes, as each encoding writes them (64-bit numbers as decimal strings). */
const comparable = (decoded: OtlpJsonExport) =>
  decoded.resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: String(span.startTimeUnixNano),
        attributes: span.attributes.map(({ key, value }) => ({ key, value: value.intValue === undefined ? value : { intValue: String(value.intValue) } })),
      })),
    ),
  );

describe('the OTLP protobuf reader of the test receiver and the benchmark sink', () => {
  it('reads what the SDK sends as protobuf exactly as the same spans read from its JSON encoding', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
    const tracer = provider.getTracer('test');
    const parent = tracer.startSpan(
      'products.create',
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.response.status_code': 201, big: 2 ** 40, negative: -3, ok: true, ratio: 0.5 } },
      ROOT_CONTEXT,
    );
    const child = tracer.startSpan('unit of work', { kind: SpanKind.INTERNAL, attributes: { 'db.system.name': 'sqlite', 'name with ünïcode': 'Straße' } }, trace.setSpan(ROOT_CONTEXT, parent));
    child.end();
    parent.end();
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans).toHaveLength(2);

    const url = await listening;
    const protobuf = await exportWith(new ProtobufTraceExporter({ url }), spans);
    const json = await exportWith(new JsonTraceExporter({ url }), spans);
    expect(protobuf.contentType).toBe('application/x-protobuf');
    expect(json.contentType).toBe('application/json');

    const fromProtobuf = comparable(decodeTraceExport(protobuf.body));
    expect(fromProtobuf).toEqual(comparable(JSON.parse(json.body.toString('utf8')) as OtlpJsonExport));
    expect(fromProtobuf.map((span) => span.name).sort()).toEqual(['products.create', 'unit of work']);
    const decodedChild = fromProtobuf.find((span) => span.name === 'unit of work');
    expect(decodedChild?.parentSpanId).toBe(parent.spanContext().spanId);
    expect(decodedChild?.traceId).toBe(parent.spanContext().traceId);
  });

  it('refuses bytes that are not a protobuf message', () => {
    expect(() => decodeTraceExport(Buffer.from([0x0a, 0x05, 0x01]))).toThrow(/truncated/);
    expect(() => decodeTraceExport(Buffer.from([0x0b]))).toThrow(/wire type/);
  });
});
