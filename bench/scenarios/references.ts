/**
 * The reference points, each in its own process and driven like the service: the crypto
 * floor, a bare Fastify route (HTTP ceiling), the same route with headers, token lookup,
 * one SQLite read and Fastify's request log, and node-oidc-provider (another token server
 * doing the same cryptographic work).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, startNode } from '../child-process.js';
import type { CryptoLimitReport } from '../crypto-limit.js';
import { freePort } from '../../test/support/free-port.js';
import { es256Key } from '../jws.js';
import { measure, poolSize } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { preflight } from '../preflight.js';
import { prepareTokenLoad, tokenRequestPool } from './token.js';

const run = promisify(execFile);

/** bench/crypto-limit.ts in its own process. */
export async function cryptoLimit(connections: number, seconds: number): Promise<CryptoLimitReport> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/crypto-limit.ts'), '--seconds', String(seconds), '--concurrency', String(connections)], {
    cwd: repoRoot,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as CryptoLimitReport;
}

export async function bareFastify(ctx: BenchContext, workDir: string): Promise<ScenarioResult> {
  const port = await freePort();
  const bodyFile = join(workDir, 'product.json');
  writeFileSync(bodyFile, ctx.fixtures.productJson);
  const origin = `http://127.0.0.1:${port}`;
  const server = startNode(['--import', 'tsx', join(repoRoot, 'bench/references/bare-fastify.ts')], { PORT: String(port), BODY_FILE: bodyFile, NODE_ENV: 'production' }, origin);
  try {
    await server.waitReady('/ready');
    const path = `/v1/products/${ctx.fixtures.productId}`;
    await (await preflight(`${origin}${path}`, {})).arrayBuffer();
    return await measure(ctx, 'bare-fastify', { spec: { origin, connections: ctx.options.connections, request: { method: 'GET', path, headers: { authorization: 'Bearer x' } } } }, () => [server.pid]);
  } finally {
    await server.stop();
  }
}

/**
 * bench/references/bare-fastify-sqlite.ts on the service's SQLite file: headers, token
 * lookup and one primary-key read, and nothing else (SQLite runs only); it logs each
 * request with Fastify's logger at the service's level, into the same kind of file.
 */
export async function bareFastifySqlite(ctx: BenchContext): Promise<ScenarioResult> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), DB_FILE: join(ctx.config.dataDir, 'booking.sqlite'), TENANT_ID: ctx.fixtures.tenantId, NODE_ENV: 'production', LOG_LEVEL: ctx.config.logLevel };
  const server = startNode(['--import', 'tsx', join(repoRoot, 'bench/references/bare-fastify-sqlite.ts')], env, origin, ctx.logFile);
  try {
    await server.waitReady('/ready');
    const path = `/v1/products/${ctx.fixtures.productId}`;
    await (await preflight(`${origin}${path}`, {})).arrayBuffer();
    return await measure(
      ctx,
      'bare-fastify-sqlite',
      { spec: { origin, connections: ctx.options.connections, request: { method: 'GET', path, headers: { authorization: `Bearer ${'x'.repeat(600)}` } } } },
      () => [server.pid],
      undefined,
      ctx.logFile,
    );
  } finally {
    await server.stop();
  }
}

export async function oidcProvider(ctx: BenchContext): Promise<ScenarioResult> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const client = { clientId: 'bench-client', kid: 'bench-es256', key: es256Key() };
  const env = { PORT: String(port), CLIENT_ID: client.clientId, CLIENT_JWK: JSON.stringify({ ...client.key.publicJwk, kid: client.kid }), NODE_ENV: 'production' };
  const server = startNode(['--import', 'tsx', join(repoRoot, 'bench/references/oidc-provider.ts')], env, origin);
  try {
    await server.waitReady('/.well-known/openid-configuration');
    const count = poolSize(ctx, ctx.crypto?.tokenFloor.jose.concurrent ?? 2_000);
    const pool = tokenRequestPool(client, `${origin}/token`, count, ctx.options.warmup + ctx.options.duration, undefined, 'read');
    const spec = await prepareTokenLoad(ctx, origin, '/token', pool);
    return await measure(ctx, 'oidc-provider', { spec, extra: { poolSize: count } }, () => [server.pid]);
  } finally {
    await server.stop();
  }
}
