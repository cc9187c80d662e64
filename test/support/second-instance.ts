import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { openPostgres } from '../../src/db/postgres.js';
import { chooseEs512Signer } from '../../src/security/libcrypto-es512-signer.js';
import { SigningKeyStore } from '../../src/security/signing-keys.js';
import { requestsTo } from './harness.js';
import type { Harness } from './harness.js';

/** One more instance of a harness's service. */
export interface Instance {
  readonly request: Harness['request'];
  close(): Promise<void>;
}

/**
 * Another instance of `h`'s service on its PostgreSQL database at `url`, as a second
 * process would run it: its own pool, caches and server; the same configuration and data
 * directory (data key, signing keys), so each instance accepts the other's tokens. Close it
 * before the harness, which removes the data directory.
 */
export async function secondInstance(h: Harness, url: string, options: { statementTimeoutMs?: number } = {}): Promise<Instance> {
  const database = openPostgres({ connectionString: url, poolSize: 25, statementTimeoutMs: options.statementTimeoutMs ?? 5000 });
  const { signer } = await chooseEs512Signer(h.config.es512Signer);
  const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json'), signer }, Math.floor(Date.now() / 1000));
  const app = await buildApp(h.config, { database, keys, logger: false });
  await app.server.ready();
  return {
    request: requestsTo(app),
    async close() {
      await app.server.close();
      await database.close();
    },
  };
}
