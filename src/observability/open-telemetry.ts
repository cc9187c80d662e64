import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span, SpanOptions } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { FastifyRequest } from 'fastify';
import type { SpanHandle, Tracing } from './tracing.js';
import { traceSettings } from './trace-settings.js';
import type { TraceSettings } from './trace-settings.js';

/** The sampler `OTEL_TRACES_SAMPLER` names. */
function sampler(settings: TraceSettings): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
  }
}

/** How a route's server spans start: name and options, the same for every request of the route. */
interface ServerSpanStart {
  readonly method: string;
  readonly name: string;
  readonly options: SpanOptions;
}

function serverSpanStart(request: FastifyRequest, url: string | undefined, action: string | undefined): ServerSpanStart {
  const method = request.method;
  // The action's name where the route is an action; else the route template, never the raw URL.
  const name = action ?? (url === undefined ? method : `${method} ${url}`);
  const attributes = url === undefined ? { 'http.request.method': method } : { 'http.request.method': method, 'http.route': url };
  return { method, name, options: { kind: SpanKind.SERVER, attributes } };
}

/**
 * Tracing with the OpenTelemetry SDK: spans batched and exported over OTLP/HTTP (protobuf,
 * or JSON where `OTEL_EXPORTER_OTLP_PROTOCOL` asks for it) to `{endpoint}/v1/traces`; the exporter reads `OTEL_EXPORTER_OTLP_HEADERS` and
 * `OTEL_EXPORTER_OTLP_TIMEOUT` itself, `env` supplies the sampler and batching
 * (`trace-settings.ts`). No context manager: a child span names its request, whose span
 * is kept by request id while it is served, so no async context tracking slows the
 * process. `traceparent` is read from callers and written on webhooks (W3C Trace
 * Context). Loaded only by `startTracing`.
 */
export function openTelemetry(options: {
  readonly endpoint: string;
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}): Tracing {
  const settings = traceSettings(options.env);
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const exporter = settings.protocol === 'http/json' ? new JsonTraceExporter({ url }) : new ProtobufTraceExporter({ url });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion }),
    sampler: sampler(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...settings.batch })],
  });
  const propagator = new W3CTraceContextPropagator();
  const tracer = provider.getTracer(options.serviceName, options.serviceVersion);
  /** Server spans of the requests being served, by request id. */
  const requestSpans = new Map<string, Span>();
  /** Per route (its config object): how its server spans start. */
  const starts = new WeakMap<object, ServerSpanStart>();

  const handle = (span: Span): SpanHandle => ({
    setAttribute: (key, value) => void span.setAttribute(key, value),
    traceHeaders: () => {
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
      return carrier;
    },
  });

  const finish = (request: FastifyRequest, status: number | undefined) => {
    const id = String(request.id);
    const span = requestSpans.get(id);
    if (!span) return;
    requestSpans.delete(id);
    // Who called, as kinds and ids only: the token, the client's address and every
    // record value stay out of the trace.
    const principal = request.principal;
    if (principal) {
      span.setAttribute('booking.principal_type', principal.actorType);
      span.setAttribute('booking.tenant_id', principal.scope.nodeId ?? 'system');
    }
    if (status === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  return {
    async inSpan(name, kind, attributes, requestId, fn) {
      const parent = requestId === null || requestId === undefined ? undefined : requestSpans.get(requestId);
      const span = tracer.startSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
      try {
        return await fn(handle(span));
      } catch (error) {
        // The error's class only: messages may quote values.
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
        throw error;
      } finally {
        span.end();
      }
    },
    instrument(server) {
      // First of the onRequest hooks, so the span covers authentication and everything after.
      server.addHook('onRequest', (request, _reply, done) => {
        const { config, url } = request.routeOptions;
        let start = starts.get(config);
        if (start?.method !== request.method) {
          start = serverSpanStart(request, url, config.action);
          // A route without a template (not found) is named by the method alone; the rest are kept.
          if (url !== undefined) starts.set(config, start);
        }
        const headers = request.headers;
        const parent = headers.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
        requestSpans.set(String(request.id), tracer.startSpan(start.name, start.options, parent));
        done();
      });
      server.addHook('onResponse', (request, reply, done) => {
        finish(request, reply.statusCode);
        done();
      });
      server.addHook('onRequestAbort', (request, done) => {
        finish(request, undefined);
        done();
      });
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}
