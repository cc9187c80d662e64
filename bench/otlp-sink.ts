/**
 * A minimal OTLP/HTTP trace receiver in the benchmark process: answers 200 to
 * `POST /v1/traces` (protobuf or JSON, optionally gzip) and counts the spans it was sent, so a traced
 * scenario proves the service really exported what it traced instead of trusting a setting.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { walkFields, walkSpans } from '../test/support/otlp-protobuf.js';

/** Spans in one OTLP/JSON export request, and how many of them are server spans (one per request). */
export interface SpanCount {
  readonly spans: number;
  readonly serverSpans: number;
  /** Each server span's start, in ms since the epoch (OTLP/JSON writes nanoseconds as a decimal string). */
  readonly serverStartsMs: readonly number[];
}

/** OTLP's `SPAN_KIND_SERVER`, as the JSON encoding writes it (a number). */
const serverKind = 2;

const list = (value: unknown, key: string): readonly unknown[] => {
  if (typeof value !== 'object' || value === null) return [];
  const field: unknown = (value as Record<string, unknown>)[key];
  return Array.isArray(field) ? field : [];
};

/**
 * Counts the spans of an `ExportTraceServiceRequest` in OTLP's JSON encoding
 * (`resourceSpans[].scopeSpans[].spans[]`); anything else counts as none.
 */
export function countSpans(body: unknown): SpanCount {
  let spans = 0;
  let serverSpans = 0;
  const serverStartsMs: number[] = [];
  for (const resource of list(body, 'resourceSpans')) {
    for (const scope of list(resource, 'scopeSpans')) {
      for (const span of list(scope, 'spans')) {
        spans += 1;
        if (typeof span !== 'object' || span === null) continue;
        const fields = span as Record<string, unknown>;
        if (fields.kind !== serverKind) continue;
        serverSpans += 1;
        const start = Number(fields.startTimeUnixNano) / 1e6;
        if (Number.isFinite(start)) serverStartsMs.push(start);
      }
    }
  }
  return { spans, serverSpans, serverStartsMs };
}

/** {@link countSpans} of a protobuf export, reading only each span's kind (field 6) and start (field 7). */
export function countProtobufSpans(body: Buffer): SpanCount {
  let spans = 0;
  let serverSpans = 0;
  const serverStartsMs: number[] = [];
  walkSpans(body, {
    span(from, to) {
      spans += 1;
      let kind = 0;
      let startMs = Number.NaN;
      walkFields(body, from, to, (number, _wireType, valueFrom, _valueTo, varint) => {
        if (number === 6) kind = varint;
        else if (number === 7) startMs = Number(body.readBigUInt64LE(valueFrom) / 1_000_000n);
      });
      if (kind !== serverKind) return;
      serverSpans += 1;
      if (Number.isFinite(startMs)) serverStartsMs.push(startMs);
    },
  });
  return { spans, serverSpans, serverStartsMs };
}

export interface OtlpSink {
  /** The base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** Totals so far: export requests received, spans, server spans, and requests it could not read. */
  totals(): { readonly exports: number; readonly spans: number; readonly serverSpans: number; readonly unreadable: number };
  /** Server spans that started within [fromMs, toMs) (epoch ms): how many requests of a time window were exported. */
  serverSpansStartedBetween(fromMs: number, toMs: number): number;
  close(): Promise<void>;
}

/** Starts the receiver on a free loopback port. */
export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  let spans = 0;
  let serverSpans = 0;
  let unreadable = 0;
  const serverStartsMs: number[] = [];
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      request.resume();
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports += 1;
      try {
        const raw = Buffer.concat(chunks);
        const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const count = request.headers['content-type'] === 'application/json' ? countSpans(JSON.parse(body.toString('utf8'))) : countProtobufSpans(body);
        spans += count.spans;
        serverSpans += count.serverSpans;
        for (const start of count.serverStartsMs) serverStartsMs.push(start);
      } catch {
        unreadable += 1;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    totals: () => ({ exports, spans, serverSpans, unreadable }),
    serverSpansStartedBetween: (fromMs, toMs) => serverStartsMs.filter((start) => start >= fromMs && start < toMs).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
