/**
 * `garbage-bearer`: 10 000 requests from one address (loopback) to `GET /v1/products/{id}`,
 * each with a forged Bearer token built to cost the most: the service's real `kid`, claims
 * that pass every cheap check, and random signature bytes, so only a P-521 verification can
 * refuse it. Three runs, each on a fresh service:
 *
 * - `limit on`: rate limits enabled (the pre-authentication limit at its default);
 * - `limit off, distinct`: rate limits disabled, every token different (each one verified);
 * - `limit off, repeated`: rate limits disabled, one token sent 10 000 times (the
 *   refused-token cache answers all but the first).
 *
 * Reported: the service's CPU seconds for the 10 000 requests, status counts, and the
 * signature checks the service itself counted (`/metrics`). Not timed: it runs as fast as
 * the service answers; the point is the CPU bound.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cpuSeconds } from '../cpu-time.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { startService } from '../harness.js';
import { runPhase } from '../load.js';

const requests = 10_000;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/** A token that passes every check but the signature. */
function forgedToken(ctx: BenchContext, kid: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: 'ES512', kid, typ: 'at+jwt' }));
  const payload = base64url(
    JSON.stringify({
      iss: ctx.config.apiBase,
      aud: ctx.config.apiBase,
      sub: ctx.fixtures.client.clientId,
      client_id: ctx.fixtures.client.clientId,
      scope: 'products:read',
      tenant_id: 'system',
      level: 'system',
      jti: randomUUID(),
      iat: now,
      exp: now + 900,
    }),
  );
  // r and s below 2^520, inside the P-521 group order: out-of-range values would be
  // refused before the costly part of the verification.
  const signature = randomBytes(132);
  signature[0] = 0;
  signature[66] = 0;
  return `${header}.${payload}.${base64url(signature)}`;
}

function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function run(ctx: BenchContext, label: string, rateLimits: boolean, distinct: boolean): Promise<ScenarioResult> {
  const server = await startService({ ...ctx, serviceEnv: { ...ctx.serviceEnv, RATE_LIMIT_ENABLED: String(rateLimits) } });
  try {
    const jwks = (await (await fetch(`${ctx.origin}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    const kid = jwks.keys.at(-1)?.kid;
    if (!kid) throw new Error('the service publishes no key');
    const one = forgedToken(ctx, kid);
    const tokens = Array.from({ length: requests }, () => (distinct ? forgedToken(ctx, kid) : one));
    let next = 0;
    const path = `/v1/products/${ctx.fixtures.productId}`;
    const before = cpuSeconds([server.pid]);
    const phase = await runPhase(
      {
        origin: ctx.origin,
        connections: ctx.options.connections,
        limit: () => requests - next,
        request: { method: 'GET', path, setupRequest: (request) => ({ ...request, headers: { authorization: `Bearer ${tokens[next++ % requests] as string}` } }) },
      },
      300,
    );
    const after = cpuSeconds([server.pid]);
    const metrics = await (await fetch(`${ctx.origin}/metrics`)).text();
    const cpu = before === null || after === null ? null : Math.round((after - before) * 100) / 100;
    const statuses = phase.statusCodes;
    const answered = Object.values(statuses).reduce((sum, count) => sum + count, 0);
    return {
      scenario: `garbage-bearer (${label})`,
      rps: Math.round(answered / phase.seconds),
      p50: 0,
      p99: 0,
      peakRssMb: null,
      cpuMsPerRequest: cpu === null || answered === 0 ? null : Math.round((cpu * 1000 * 1000) / answered) / 1000,
      phase: null,
      extra: {
        requests: answered,
        cpuSeconds: cpu,
        status401: statuses['401'] ?? 0,
        status429: statuses['429'] ?? 0,
        otherStatuses: answered - (statuses['401'] ?? 0) - (statuses['429'] ?? 0),
        signatureChecksInvalid: metricValue(metrics, 'access_token_signature_checks_total{result="invalid"}'),
        cachedRefusals: metricValue(metrics, 'access_token_cached_refusals_total'),
        seconds: phase.seconds,
      },
    };
  } finally {
    await server.stop();
  }
}

/** The three runs described in the module comment. */
export async function garbageBearerScenario(ctx: BenchContext): Promise<ScenarioResult[]> {
  return [await run(ctx, 'limit on', true, true), await run(ctx, 'limit off, distinct', false, true), await run(ctx, 'limit off, repeated', false, false)];
}
