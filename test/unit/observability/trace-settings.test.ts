import { describe, expect, it } from 'vitest';
import { traceSettings } from '../../../src/observability/trace-settings.js';

describe('the standard OTEL_* variables of tracing', () => {
  it('by default traces every request (parent-based, always on) and exports OTLP protobuf each second in batches of 512', () => {
    expect(traceSettings({})).toEqual({
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      batch: { scheduledDelayMillis: 1000, exportTimeoutMillis: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    });
  });

  it('takes the sampler, its ratio and the batch processor settings', () => {
    const settings = traceSettings({
      OTEL_TRACES_SAMPLER: ' ParentBased_TraceIdRatio ',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_EXPORT_TIMEOUT: '5000',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1024',
    });
    expect(settings).toEqual({
      protocol: 'http/protobuf',
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
      batch: { scheduledDelayMillis: 200, exportTimeoutMillis: 5000, maxQueueSize: 4096, maxExportBatchSize: 1024 },
    });
    expect(traceSettings({ OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: 'ignored' })).toMatchObject({ sampler: 'always_off', ratio: 1 });
  });

  it('sends OTLP/JSON when OTEL_EXPORTER_OTLP_PROTOCOL asks for it, the traces-specific variable first', () => {
    expect(traceSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).protocol).toBe('http/json');
    expect(traceSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).protocol).toBe('http/protobuf');
    expect(traceSettings({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' ', OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON' }).protocol).toBe('http/json');
  });

  it('refuses values the spec does not allow, naming the variable', () => {
    expect(() => traceSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not one of http\/protobuf, http\/json \(OTLP over gRPC is not supported/);
    expect(() => traceSettings({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL "http\/xml"/);
    expect(() => traceSettings({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/OTEL_TRACES_SAMPLER "jaeger_remote"/);
    expect(() => traceSettings({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG "1.5"/);
    expect(() => traceSettings({ OTEL_BSP_SCHEDULE_DELAY: '-1' })).toThrow(/OTEL_BSP_SCHEDULE_DELAY "-1"/);
    expect(() => traceSettings({ OTEL_BSP_MAX_QUEUE_SIZE: '100' })).toThrow(/OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(512\) must not exceed OTEL_BSP_MAX_QUEUE_SIZE \(100\)/);
  });
});
