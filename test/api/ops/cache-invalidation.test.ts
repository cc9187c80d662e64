import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../../cli/operator-services.js';
import { buildApp } from '../../../src/app.js';
import type { App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config/config.js';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import type { Clock } from '../../../src/core/clock.js';
import { freshPostgresUrl } from '../../support/databases.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';

/** Two instances of the service on one database, each with its own connection pool and caches. */
async function twoInstances(open: () => Database, clocks: [Clock, Clock]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-cache-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://api.test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false' });
  const databases = [open(), open()] as const;
  await migrateToLatest(databases[0]);
  const keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
  const apps: App[] = [];
  for (const [i, database] of databases.entries()) apps.push(await buildApp(config, { database, keys, logger: false, clock: clocks[i] as Clock }));
  const operator = await buildOperatorServices(config, databases[0]);
  const key = clientKeyPair();
  const keyFile = join(dataDir, 'client.pub');
  writeFileSync(keyFile, key.publicPem);
  const client = await operator.createClient({
    name: 'reader',
    tenant: 'system',
    capabilities: 'products:list api-clients:read api-clients:update',
    publicKeyFile: keyFile,
    kid: undefined,
    ipAllow: undefined,
  });
  const clientId = String((client as Record<string, unknown>).client_id);
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await signAssertion(key, clientId, config.tokenEndpoint, { kid: String(client.kid) }),
  });
  const issued = await apps[0]!.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
  const token = String(issued.json().access_token);
  const list = (app: App) => app.server.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${token}` } });
  return {
    apps: apps as [App, App],
    databases,
    clientId,
    list,
    config,
    async disableThrough(app: App) {
      const read = await app.server.inject({ method: 'GET', url: `/v1/api-clients/${clientId}`, headers: { authorization: `Bearer ${token}` } });
      return app.server.inject({
        method: 'PATCH',
        url: `/v1/api-clients/${clientId}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': String(read.headers.etag) },
        payload: '{"disabled":true}',
      });
    },
    async close() {
      for (const app of apps) await app.server.close();
      for (const database of databases) await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls until `request` answers 401; fails after `ms` (a bound against hanging, not a budget). */
async function refused(request: () => Promise<{ statusCode: number }>, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await request()).statusCode === 401) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`still accepted after ${ms} ms`);
}

/**
 * A clock that runs until `stop()` and then stands still: instance B's, stopped once B has
 * cached the client, so its 5 s TTL can never run out and only NOTIFY can explain a refusal
 * (however long a loaded machine takes to deliver it).
 */
function stoppableClock(): Clock & { stop(): void } {
  let stoppedAt: number | undefined;
  return {
    now: () => stoppedAt ?? Date.now(),
    stop: () => void (stoppedAt = Date.now()),
  };
}

describe('a client disabled on one instance is refused by the others', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('on PostgreSQL through NOTIFY, not the 5 s cache TTL', async () => {
    const url = await freshPostgresUrl();
    const real: Clock = { now: () => Date.now() };
    const b = stoppableClock();
    const setup = await twoInstances(() => openPostgres({ connectionString: url, poolSize: 4, statementTimeoutMs: 5000 }), [real, b]);
    cleanups.push(() => setup.close());
    expect((await setup.list(setup.apps[0])).statusCode).toBe(200);
    // B caches the client now, and its time stops: its TTL alone would accept forever.
    expect((await setup.list(setup.apps[1])).statusCode).toBe(200);
    b.stop();
    expect((await setup.disableThrough(setup.apps[0])).statusCode).toBe(200);
    expect(await refused(() => setup.list(setup.apps[1]))).toBe(true);
  });

  it('on PostgreSQL also when the operator CLI (another process and pool) disables it', async () => {
    const url = await freshPostgresUrl();
    const real: Clock = { now: () => Date.now() };
    const b = stoppableClock();
    const setup = await twoInstances(() => openPostgres({ connectionString: url, poolSize: 4, statementTimeoutMs: 5000 }), [real, b]);
    cleanups.push(() => setup.close());
    expect((await setup.list(setup.apps[1])).statusCode).toBe(200);
    b.stop();
    const cli = openPostgres({ connectionString: url, poolSize: 1, statementTimeoutMs: 5000 });
    cleanups.push(() => cli.close());
    const run = await (
      await buildOperatorServices(setup.config, cli)
    ).runAction({ action: 'api-clients.update', tenant: 'system', id: setup.clientId, body: '{"disabled":true}', ifMatch: await etagOf(setup), query: undefined });
    expect(run.status).toBe(200);
    expect(await refused(() => setup.list(setup.apps[1]))).toBe(true);
  });

  it('on SQLite (one file, two processes) once the 5 s cache TTL has run out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'booking-cache-sqlite-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    let offset = 0;
    const setup = await twoInstances(() => openSqlite(join(dir, 'shared.sqlite')), [{ now: () => Date.now() }, { now: () => Date.now() + offset }]);
    cleanups.push(() => setup.close());
    expect((await setup.list(setup.apps[1])).statusCode).toBe(200);
    expect((await setup.disableThrough(setup.apps[0])).statusCode).toBe(200);
    expect((await setup.list(setup.apps[0])).statusCode).toBe(401);
    // No feed between processes on SQLite: B serves from its cache until the TTL ends.
    expect((await setup.list(setup.apps[1])).statusCode).toBe(200);
    offset = 5_001;
    expect((await setup.list(setup.apps[1])).statusCode).toBe(401);
  });
});

async function etagOf(setup: Awaited<ReturnType<typeof twoInstances>>): Promise<string> {
  const row = await setup.databases[0].db.selectFrom('api_clients').select('etag').where('_id', '=', setup.clientId).executeTakeFirstOrThrow();
  return String(row.etag);
}
