import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Config } from '../../src/config/config.js';
import type { Database, DialectName } from '../../src/db/dialect.js';
import { getResource } from '../../src/registry/index.js';
import { asSystem } from '../../src/core/principal.js';
import { chooseEs512Signer } from '../../src/security/libcrypto-es512-signer.js';
import { SigningKeyStore } from '../../src/security/signing-keys.js';
import type { Clock } from '../../src/core/clock.js';
import type { RequestContext } from '../../src/core/request-context.js';
import { TenantDirectory } from '../../src/security/tenant-directory.js';
import { freshDatabase } from './databases.js';
import type { DatabaseOptions } from './databases.js';
import { clientKeyPair, signAssertion } from './keys.js';
import type { TestKeyPair } from './keys.js';

export interface TestClient {
  readonly clientId: string;
  readonly kid: string;
  readonly key: TestKeyPair;
  readonly tenantId: string | null;
}

export interface Harness {
  readonly app: App;
  readonly config: Config;
  readonly database: Database;
  /** A tenant node created directly through the service (as the operator would). */
  tenant(name: string, level?: 'partner' | 'parent_tenant' | 'tenant', parent?: string | null): Promise<string>;
  /** An API client in a node (`null` = system) holding `capabilities`. */
  client(tenantId: string | null, capabilities: readonly string[], options?: { ipAllowlist?: string[]; alg?: TestKeyPair['alg'] }): Promise<TestClient>;
  /**
   * A token from the real token endpoint. `at` (ms) dates the client assertion, for a
   * service whose injected clock runs ahead of the wall clock.
   */
  token(client: TestClient, scope?: string, at?: number): Promise<string>;
  /** Shortcut: a client in `tenantId` with `capabilities`, and its Bearer token. */
  bearer(tenantId: string | null, capabilities: readonly string[]): Promise<string>;
  request(options: { method: string; url: string; token?: string; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * Requests to `app` without a socket (Fastify's `inject`): a Bearer `token`, and a JSON
 * `body` unless the headers name another content type.
 */
export function requestsTo(app: App): Harness['request'] {
  return ({ method, url, token, body, headers = {} }) => {
    const allHeaders: Record<string, string> = { ...headers };
    if (token) allHeaders.authorization = `Bearer ${token}`;
    if (body !== undefined && !Object.keys(allHeaders).some((h) => h.toLowerCase() === 'content-type')) allHeaders['content-type'] = 'application/json';
    return app.server.inject({ method: method as 'GET', url, headers: allHeaders, ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }) });
  };
}

/** Every resource capability for a resource, e.g. `products:*` expanded. */
export function crud(resource: string): string[] {
  return ['list', 'read', 'create', 'update', 'delete'].map((op) => `${resource}:${op}`);
}

/** A complete app on a fresh database of the dialect, with a temp data dir. */
export async function createHarness(dialect: DialectName, options: { env?: Record<string, string>; clock?: Clock; database?: DatabaseOptions; adminDir?: string } = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://api.test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', ...options.env });
  const database = await freshDatabase(dialect, options.database);
  // The signer main.ts would choose for this configuration (ES512_SIGNER).
  const { signer } = await chooseEs512Signer(config.es512Signer);
  const keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json'), signer }, Math.floor(Date.now() / 1000));
  const app = await buildApp(config, { database, keys, logger: false, ...(options.clock ? { clock: options.clock } : {}), ...(options.adminDir ? { adminDir: options.adminDir } : {}) });
  await app.server.ready();
  const directory = new TenantDirectory(database);
  const system = asSystem();

  const contextIn = async (tenantId: string | null): Promise<RequestContext> => {
    const scope = await directory.resolve(tenantId);
    if (!scope) throw new Error(`no tenant ${tenantId}`);
    return { principal: { ...system, scope }, clientIp: null, requestId: null };
  };

  const harness: Harness = {
    app,
    config,
    database,
    async tenant(name, level = 'tenant', parent = null) {
      const body: Record<string, unknown> = { name, level };
      if (parent) body.parent_id = parent;
      const { record } = await app.resources.create(await contextIn(null), getResource('tenants'), body);
      return String(record._id);
    },
    async client(tenantId, capabilities, clientOptions = {}) {
      const key = clientKeyPair(clientOptions.alg);
      const body: Record<string, unknown> = { name: 'test client', capabilities: [...capabilities], public_key: key.publicPem };
      if (clientOptions.ipAllowlist) body.ip_allowlist = clientOptions.ipAllowlist;
      const { record } = await app.resources.create(await contextIn(tenantId), getResource('api-clients'), body);
      const keys = record.keys as { kid: string }[];
      return { clientId: String(record._id), kid: keys[0]?.kid ?? '', key, tenantId };
    },
    async token(client, scope, at) {
      const assertion = await signAssertion(client.key, client.clientId, config.tokenEndpoint, { kid: client.kid, ...(at === undefined ? {} : { now: Math.floor(at / 1000) }) });
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        ...(scope ? { scope } : {}),
      });
      const response = await app.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
      if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
      return (response.json() as { access_token: string }).access_token;
    },
    async bearer(tenantId, capabilities) {
      return harness.token(await harness.client(tenantId, capabilities));
    },
    request: requestsTo(app),
    async close() {
      await app.server.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
