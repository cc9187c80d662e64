import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import { getResource } from '../../src/registry/index.js';
import { asSystem } from '../../src/core/principal.js';
import { SigningKeyStore } from '../../src/security/signing-keys.js';
import { TenantDirectory } from '../../src/security/tenant-directory.js';
import { freshPostgresUrl } from './databases.js';
import { clientKeyPair, signAssertion } from './keys.js';

/** An app whose PostgreSQL statements time out quickly, and a patient handle for seeding. */
export interface TimeoutHarness {
  readonly app: App;
  /** Same database without the short timeout: seeding and inspection. */
  readonly admin: Database;
  readonly tenantId: string;
  readonly token: string;
  get(url: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * The full app on a fresh PostgreSQL database opened with `statementTimeoutMs`. Setup runs
 * through a second app on an untimed connection to the same database (sharing the signing
 * keys), so only the requests under test are subject to the short timeout.
 */
export async function createTimeoutHarness(statementTimeoutMs: number, capabilities: readonly string[]): Promise<TimeoutHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-timeout-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://api.test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false' });
  const url = await freshPostgresUrl();
  const admin = openPostgres({ connectionString: url, poolSize: 4, statementTimeoutMs: 60_000 });
  await migrateToLatest(admin);
  const keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));

  const setup = await buildApp(config, { database: admin, keys, logger: false });
  const directory = new TenantDirectory(admin);
  const contextIn = async (nodeId: string | null) => {
    const scope = await directory.resolve(nodeId);
    if (!scope) throw new Error(`no tenant node ${nodeId}`);
    return { principal: { ...asSystem(), scope }, clientIp: null, requestId: null };
  };
  const tenant = await setup.resources.create(await contextIn(null), getResource('tenants'), { name: 'Timeouts', level: 'tenant' });
  const tenantId = String(tenant.record._id);
  const inTenant = await contextIn(tenantId);
  const key = clientKeyPair();
  const client = await setup.resources.create(inTenant, getResource('api-clients'), { name: 'timeout client', capabilities: [...capabilities], public_key: key.publicPem });
  const clientId = String(client.record._id);
  const kid = (client.record.keys as { kid: string }[])[0]?.kid ?? '';
  const assertion = await signAssertion(key, clientId, config.tokenEndpoint, { kid });
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
  });
  const issued = await setup.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
  if (issued.statusCode !== 200) throw new Error(`token request failed: ${issued.body}`);
  const token = (issued.json() as { access_token: string }).access_token;
  await setup.server.close();

  const database = openPostgres({ connectionString: url, poolSize: 4, statementTimeoutMs });
  const app = await buildApp(config, { database, keys, logger: false });
  await app.server.ready();
  return {
    app,
    admin,
    tenantId,
    token,
    get: (path) => app.server.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } }),
    async close() {
      await app.server.close();
      await database.close();
      await admin.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
