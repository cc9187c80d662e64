/**
 * The standard OpenTelemetry environment variables the service honours when tracing is on,
 * read once at start-up. The SDK packages the service uses (`sdk-trace` 2.x) no longer
 * read them themselves; the exporter still reads its own `OTEL_EXPORTER_OTLP_*`.
 */

const samplerNames = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/** `OTEL_TRACES_SAMPLER`'s values (the spec's, without the Jaeger and X-Ray ones). */
export type SamplerName = (typeof samplerNames)[number];

/** `OTEL_EXPORTER_OTLP_PROTOCOL`'s values this service sends (OTLP over gRPC is not built in). */
const protocols = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof protocols)[number];

export interface TraceSettings {
  /**
   * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, by default
   * `http/protobuf` (the spec's default; about a third of JSON's bytes, and cheaper to encode).
   */
  readonly protocol: OtlpProtocol;
  /** `OTEL_TRACES_SAMPLER`, by default `parentbased_always_on`: every request is traced unless its caller decided otherwise. */
  readonly sampler: SamplerName;
  /** `OTEL_TRACES_SAMPLER_ARG` for the ratio samplers (0…1, default 1). */
  readonly ratio: number;
  /** `OTEL_BSP_*`: how finished spans are batched for export. */
  readonly batch: {
    readonly scheduledDelayMillis: number;
    readonly exportTimeoutMillis: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
  };
}

/** Finished spans wait at most this long to be exported together (the spec's default is 5 s). */
const defaultScheduleDelayMs = 1000;

function count(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} "${raw}" is not a positive integer`);
  return value;
}

/** The settings in `env`; a value the spec does not allow stops the start with its name. */
export function traceSettings(env: Readonly<Record<string, string | undefined>>): TraceSettings {
  const rawSampler = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const sampler = samplerNames.find((name) => name === rawSampler);
  if (sampler === undefined) throw new Error(`OTEL_TRACES_SAMPLER "${rawSampler}" is not one of ${samplerNames.join(', ')}`);
  const rawRatio = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = rawRatio === undefined || rawRatio === '' || !sampler.endsWith('traceidratio') ? 1 : Number(rawRatio);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG "${rawRatio}" is not a ratio between 0 and 1`);
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const rawProtocol = env[protocolVariable]?.trim().toLowerCase() || 'http/protobuf';
  const protocol = protocols.find((name) => name === rawProtocol);
  if (protocol === undefined) throw new Error(`${protocolVariable} "${rawProtocol}" is not one of ${protocols.join(', ')} (OTLP over gRPC is not supported: point it at a collector's OTLP/HTTP port)`);
  const maxQueueSize = count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048);
  const maxExportBatchSize = count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512);
  if (maxExportBatchSize > maxQueueSize) throw new Error(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`);
  return {
    protocol,
    sampler,
    ratio,
    batch: {
      scheduledDelayMillis: count(env, 'OTEL_BSP_SCHEDULE_DELAY', defaultScheduleDelayMs),
      exportTimeoutMillis: count(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
      maxQueueSize,
      maxExportBatchSize,
    },
  };
}
