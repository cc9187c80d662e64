/**
 * `get-bearer` and `get-dpop`: `GET /v1/products/{id}` with one access token issued by the
 * running service (so cached at issuance). DPoP calls carry a fresh pre-signed proof each,
 * with `ath`, so every request pays one ES256 verification and one replay-store insert.
 * `get-bearer-warn`: the same load at `LOG_LEVEL=warn` (the access log's cost, issue 27).
 * `get-bearer-traced`: the same load as `get-bearer` with tracing on, exporting to a
 * receiver in this process (issue 25).
 */
import { es256Key } from '../jws.js';
import { startOtlpSink } from '../otlp-sink.js';
import { poolSize, runAgainstService } from '../harness.js';
import type { BenchContext, Prepared, ScenarioResult } from '../harness.js';
import { dpopProof, fetchToken, spreadIat } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { buildPool } from '../request-pool.js';

export async function prepareGet(ctx: BenchContext, dpop: boolean): Promise<Prepared> {
  const path = `/v1/products/${ctx.fixtures.productId}`;
  const dpopKey = dpop ? es256Key() : undefined;
  const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, ctx.fixtures.client, dpopKey);
  if (!dpopKey) {
    const headers = { authorization: `Bearer ${token}` };
    await (await preflight(`${ctx.origin}${path}`, { headers })).arrayBuffer();
    return { spec: { origin: ctx.origin, connections: ctx.options.connections, request: { method: 'GET', path, headers } } };
  }
  const count = poolSize(ctx, ctx.crypto?.es256Verify.jose.concurrent ?? 5_000);
  const seconds = ctx.options.warmup + ctx.options.duration;
  const htu = `${ctx.origin}${path}`;
  const started = performance.now();
  const pool = buildPool(count, (i) => dpopProof(dpopKey, 'GET', htu, spreadIat(i, count, seconds), token));
  const buildSeconds = (performance.now() - started) / 1000;
  const headers = { authorization: `DPoP ${token}` };
  await (await preflight(htu, { headers: { ...headers, dpop: pool.take() } })).arrayBuffer();
  return {
    spec: {
      origin: ctx.origin,
      connections: ctx.options.connections,
      limit: () => pool.remaining,
      request: { method: 'GET', path, headers, setupRequest: (request) => ({ ...request, headers: { ...request.headers, dpop: pool.take() } }) },
    },
    extra: { poolSize: count, poolBuildSeconds: Math.round(buildSeconds * 100) / 100 },
  };
}

export function getScenario(ctx: BenchContext, dpop: boolean): Promise<ScenarioResult> {
  return runAgainstService(ctx, dpop ? 'get-dpop' : 'get-bearer', () => prepareGet(ctx, dpop));
}

/**
 * `get-bearer` with `LOG_LEVEL=warn`, so no line per request: its CPU per request,
 * subtracted from `get-bearer`'s in the same round, is what the access log costs.
 */
export function getQuietScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const quiet: BenchContext = { ...ctx, serviceEnv: { ...ctx.serviceEnv, LOG_LEVEL: 'warn' } };
  return runAgainstService(quiet, 'get-bearer-warn', () => prepareGet(quiet, false));
}

/**
 * `get-bearer` with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP receiver in this
 * process, so every request pays for its server span, its child spans and their export. The
 * receiver counts what arrived after the service stopped (its shutdown exports the last
 * batch); no spans at all fails the scenario, since the figure would then not be a traced one.
 */
export async function getTracedScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const sink = await startOtlpSink();
  try {
    const traced: BenchContext = { ...ctx, serviceEnv: { ...ctx.serviceEnv, OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint } };
    // beforePhase runs before the warm-up (if any) and then before the measurement: the last call starts the measured window.
    let measuredFrom = 0;
    const result = await runAgainstService(traced, 'get-bearer-traced', async () => {
      const prepared = await prepareGet(traced, false);
      const before = prepared.beforePhase;
      return {
        ...prepared,
        beforePhase: async () => {
          await before?.();
          measuredFrom = Date.now();
        },
      };
    });
    const totals = sink.totals();
    if (totals.spans === 0) throw new Error(`tracing was on but no span reached the OTLP receiver at ${sink.endpoint} (${totals.exports} export requests, ${totals.unreadable} unreadable)`);
    const measured = result.phase?.ok ?? 0;
    const exported = sink.serverSpansStartedBetween(measuredFrom, measuredFrom + (result.phase?.seconds ?? ctx.options.duration) * 1000);
    // The batch processor drops spans when its queue is full; then part of tracing's cost was not paid.
    if (exported < measured) console.error(`  get-bearer-traced: ${exported} server spans exported for ${measured} measured requests (the SDK dropped ${measured - exported})`);
    return {
      ...result,
      extra: {
        ...result.extra,
        spansReceived: totals.spans,
        serverSpansReceived: totals.serverSpans,
        measuredRequestsExported: exported,
        measuredRequestsExportedShare: measured === 0 ? null : Math.round((exported / measured) * 1000) / 1000,
        otlpExports: totals.exports,
        otlpUnreadable: totals.unreadable,
      },
    };
  } finally {
    await sink.close();
  }
}
