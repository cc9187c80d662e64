import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { FastifyRequest } from 'fastify';
import type { Tracing } from './tracing.js';

/** How long finished spans wait to be exported together (the SDK's default is 5 s). */
const exportDelayMs = 1000;

/**
 * Tracing with the OpenTelemetry SDK: spans batched and exported over OTLP/HTTP (JSON) to
 * `{endpoint}/v1/traces`; the exporter reads `OTEL_EXPORTER_OTLP_HEADERS` and
 * `OTEL_EXPORTER_OTLP_TIMEOUT` itself. Context follows the request through async calls
 * (AsyncLocalStorage); `traceparent` is read from callers and written on webhooks (W3C
 * Trace Context). Loaded only by `startTracing`.
 */
export function openTelemetry(options: { readonly endpoint: string; readonly serviceName: string; readonly serviceVersion: string }): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer(options.serviceName, options.serviceVersion);
  const requestSpans = new WeakMap<FastifyRequest, Span>();

  const finish = (request: FastifyRequest, status: number | undefined) => {
    const span = requestSpans.get(request);
    if (!span) return;
    requestSpans.delete(request);
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
    async inSpan(name, kind, attributes, fn) {
      return tracer.startActiveSpan(name, { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, async (span) => {
        try {
          return await fn(span);
        } catch (error) {
          // The error's class only: messages may quote values.
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    headers() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier;
    },
    instrument(server) {
      // First of the onRequest hooks: authentication and everything after run in the span.
      server.addHook('onRequest', (request, _reply, done) => {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers);
        const route = request.routeOptions.url;
        // The action's name where the route is an action; else the route template, never the raw URL.
        const name = request.routeOptions.config.action ?? (route === undefined ? request.method : `${request.method} ${route}`);
        const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, ...(route === undefined ? {} : { 'http.route': route }) } }, parent);
        requestSpans.set(request, span);
        context.with(trace.setSpan(parent, span), done);
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
