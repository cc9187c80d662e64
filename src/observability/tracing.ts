import type { FastifyInstance } from 'fastify';

/** Span attribute values the service records: ids, names, counts; never personal data or secrets. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** What a running span lets its body do: add what it learns (a receiver's status code), pass the trace on. */
export interface SpanHandle {
  setAttribute(key: string, value: string | number | boolean): void;
  /** This span's W3C trace context as headers (`traceparent`, `tracestate`) for an outgoing request. */
  traceHeaders(): Readonly<Record<string, string>>;
}

/** The tracing the service does, whatever implements it (`open-telemetry.ts`). */
export interface Tracing {
  /**
   * Runs `fn` in a span: a child of the server span of request `requestId` while that
   * request is being served, else the root of a new trace (background jobs, the dispatcher).
   */
  inSpan<T>(name: string, kind: 'internal' | 'client', attributes: SpanAttributes, requestId: string | null | undefined, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /** One server span per request, continuing a caller's `traceparent`. */
  instrument(server: FastifyInstance): void;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

const noHeaders: Readonly<Record<string, string>> = Object.freeze({});
const noSpan: SpanHandle = Object.freeze({ setAttribute: () => undefined, traceHeaders: () => noHeaders });

/**
 * The process's tracing, like OpenTelemetry's own global tracer provider: set once by
 * {@link startTracing} when an exporter is configured. Unset, {@link withSpan} costs one
 * comparison and nothing of OpenTelemetry is loaded.
 */
let active: Tracing | undefined;

/**
 * Runs `fn` in a span when tracing is on (a child of request `requestId`'s span while it is
 * served); just runs it otherwise. The parent is named, not found through async context:
 * AsyncLocalStorage on Node 20 slows every promise of the process.
 */
export function withSpan<T>(name: string, kind: 'internal' | 'client', attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, requestId?: string | null): Promise<T> {
  return active ? active.inSpan(name, kind, attributes, requestId, fn) : fn(noSpan);
}

/**
 * Turns tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is not
 * `true`): loads the OpenTelemetry SDK (only then: the import is dynamic) and exports spans
 * over OTLP/HTTP (protobuf, or JSON on request). Answers `undefined`, having loaded nothing, otherwise. `env`
 * holds the standard `OTEL_*` variables the SDK would read (sampler, batching).
 */
export async function startTracing(options: {
  readonly endpoint: string | undefined;
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}): Promise<Tracing | undefined> {
  const env = options.env ?? {};
  if (options.endpoint === undefined || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const { openTelemetry } = await import('./open-telemetry.js');
  active = openTelemetry({ endpoint: options.endpoint, serviceName: env.OTEL_SERVICE_NAME?.trim() || options.serviceName, serviceVersion: options.serviceVersion, env });
  return active;
}
