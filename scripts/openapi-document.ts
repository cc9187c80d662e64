import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openSqlite } from '../src/db/sqlite.js';
import type { OpenApiDocument } from '../src/routes/openapi-document.js';
import { SigningKeyStore } from '../src/security/signing-keys.js';

/**
 * The service's OpenAPI document exactly as `GET /v1/openapi.json` serves it, built in this
 * process: the app is assembled on an in-memory SQLite database (the document depends on the
 * registered routes, known only once the app is ready) and asked for it without listening.
 */
export async function openApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), 'booking-openapi-'));
  const database = openSqlite(':memory:', {});
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: 'http://localhost:3000' });
    await migrateToLatest(database);
    const keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    const app = await buildApp(config, { database, keys, logger: false });
    try {
      await app.server.ready();
      const response = await app.server.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${response.statusCode}`);
      return response.json() as OpenApiDocument;
    } finally {
      await app.server.close();
    }
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
