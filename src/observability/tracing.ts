import type { FastifyInstance } from 'fastify';

/** Span attribute values the service records: ids, names, counts; never personal data or secrets. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** What a running span lets its body add once it knows more (a receiver's status code). */
export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
}

/** The tracing the service does, whatever implements it (`open-telemetry.ts`). */
export interface Tracing {
  /** Runs `fn` in a span that is a child of the active one (the request's, if any). */
  inSpan<T>(name: string, kind: 'internal' | 'client', attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** The W3C trace context of the active span as headers (`traceparent`, `tracestate`). */
  headers(): Readonly<Record<string, string>>;
  /** One server span per request, continuing a caller's `traceparent`. */
  instrument(server: FastifyInstance): void;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({});
const noSpan: SpanHandle = { setAttribute: () => undefined };

/**
 * The process's tracing, like OpenTelemetry's own global tracer provider: set once by
 * {@link startTracing} when an exporter is configured. Unset, {@link withSpan} and
 * {@link traceHeaders} cost one comparison and nothing of OpenTelemetry is loaded.
 */
let active: Tracing | undefined;

/** Runs `fn` in a child span of the active one when tracing is on; just runs it otherwise. */
export function withSpan<T>(name: string, kind: 'internal' | 'client', attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  return active ? active.inSpan(name, kind, attributes, fn) : fn(noSpan);
}

/** The `traceparent` (and `tracestate`) of the active span to send on an outgoing request; none when tracing is off. */
export function traceHeaders(): Readonly<Record<string, string>> {
  return active ? active.headers() : noHeaders;
}

/**
 * Turns tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: loads the OpenTelemetry SDK
 * (only then: the import is dynamic) and exports spans over OTLP/HTTP as JSON. Answers
 * `undefined`, having loaded nothing, when it is unset.
 */
export async function startTracing(options: { readonly endpoint: string | undefined; readonly serviceName: string; readonly serviceVersion: string }): Promise<Tracing | undefined> {
  if (options.endpoint === undefined) return undefined;
  const { openTelemetry } = await import('./open-telemetry.js');
  active = openTelemetry({ endpoint: options.endpoint, serviceName: options.serviceName, serviceVersion: options.serviceVersion });
  return active;
}
