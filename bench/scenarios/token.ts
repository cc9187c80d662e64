/**
 * `token-bearer` and `token-dpop`: the client credentials grant with unique pre-signed ES256
 * assertions (and, for DPoP, a fresh pre-signed proof each), so the load generator signs
 * nothing while measuring.
 */
import { es256Key } from '../jws.js';
import type { Es256Key } from '../jws.js';
import type { BenchClient } from '../fixtures.js';
import { poolSize, runAgainstService } from '../harness.js';
import type { BenchContext, Prepared, ScenarioResult } from '../harness.js';
import { clientAssertion, dpopProof, spreadIat, tokenRequestBody } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { buildPool } from '../request-pool.js';
import type { RequestPool } from '../request-pool.js';

export interface TokenRequestItem {
  readonly body: string;
  readonly proof: string | undefined;
}

/** `count` unique token requests for `client` at `endpoint`, with times spread over the run. */
export function tokenRequestPool(client: BenchClient, endpoint: string, count: number, seconds: number, dpopKey?: Es256Key, scope?: string): RequestPool<TokenRequestItem> {
  return buildPool(count, (i) => {
    const iat = spreadIat(i, count, seconds);
    return { body: tokenRequestBody(client.clientId, clientAssertion(client, endpoint, iat), scope), proof: dpopKey ? dpopProof(dpopKey, 'POST', endpoint, iat) : undefined };
  });
}

/** Load that posts one pool item per request to `path` on `origin`. */
export async function prepareTokenLoad(ctx: BenchContext, origin: string, path: string, pool: RequestPool<TokenRequestItem>): Promise<Prepared['spec']> {
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const first = pool.take();
  const response = await preflight(`${origin}${path}`, { method: 'POST', headers: { ...headers, ...(first.proof ? { dpop: first.proof } : {}) }, body: first.body });
  await response.arrayBuffer();
  return {
    origin,
    connections: ctx.options.connections,
    limit: () => pool.remaining,
    request: {
      method: 'POST',
      path,
      headers,
      setupRequest: (request) => {
        const item = pool.take();
        return { ...request, body: item.body, headers: item.proof ? { ...request.headers, dpop: item.proof } : request.headers };
      },
    },
  };
}

/** Token issuance against our service; `bound` is the crypto floor that sizes the pool. */
export async function prepareServiceTokens(ctx: BenchContext, dpop: boolean): Promise<Prepared> {
  // The faster of the two floors: the libcrypto signer lets the service outrun jose's.
  const bound = Math.max(ctx.crypto?.tokenFloor.jose.concurrent ?? 2_000, ctx.crypto?.tokenFloor.libcrypto?.concurrent ?? 0);
  const count = poolSize(ctx, bound);
  const started = performance.now();
  const pool = tokenRequestPool(ctx.fixtures.client, ctx.tokenEndpoint, count, ctx.options.warmup + ctx.options.duration, dpop ? es256Key() : undefined);
  const buildSeconds = (performance.now() - started) / 1000;
  return { spec: await prepareTokenLoad(ctx, ctx.origin, '/v1/auth/token', pool), extra: { poolSize: count, poolBuildSeconds: Math.round(buildSeconds * 100) / 100 } };
}

export function tokenScenario(ctx: BenchContext, dpop: boolean): Promise<ScenarioResult> {
  return runAgainstService(ctx, dpop ? 'token-dpop' : 'token-bearer', () => prepareServiceTokens(ctx, dpop));
}
