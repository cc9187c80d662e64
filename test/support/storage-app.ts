import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { Config } from '../../src/config/config.js';
import type { Database } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open-database.js';
import { openSigningKeys } from '../../src/signing-key-source.js';
import { signAssertion } from './keys.js';
import type { TestKeyPair } from './keys.js';

/** An app booted the way `src/main.ts` boots it, on the storage an environment names. */
export interface StorageApp {
  readonly app: App;
  readonly config: Config;
  readonly database: Database;
  /** Asks the real token endpoint for a token with a client assertion signed by `key`. */
  requestToken(clientId: string, kid: string, key: TestKeyPair, scope?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the database of `env` (`DATA_DIR`, `DATABASE_URL`), loads or creates
 * the signing keys there and builds the app without listening: what the CLI wrote is what
 * this app reads.
 */
export async function openStorageApp(env: Record<string, string>): Promise<StorageApp> {
  const config = loadConfig({ PUBLIC_URL: 'http://api.test', LOG_LEVEL: 'silent', ...env });
  const database = openDatabase(config);
  await migrateToLatest(database);
  const keys = await openSigningKeys(config, Math.floor(Date.now() / 1000));
  const app = await buildApp(config, { database, keys, logger: false });
  await app.server.ready();
  return {
    app,
    config,
    database,
    async requestToken(clientId, kid, key, scope) {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await signAssertion(key, clientId, config.tokenEndpoint, { kid }),
        ...(scope ? { scope } : {}),
      });
      const response = await app.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
      return { status: response.statusCode, body: response.json() as Record<string, unknown> };
    },
    async close() {
      await app.server.close();
      await database.close();
    },
  };
}
