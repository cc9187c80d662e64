import { join } from 'node:path';
import { buildApp } from '../../../src/app.js';
import type { Clock } from '../../../src/core/clock.js';
import type { Database } from '../../../src/db/dialect.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { chooseEs512Signer } from '../../../src/security/libcrypto-es512-signer.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { requestsTo } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/** A clock the test moves forward: holds run out when it says so. It runs with the wall clock in between, so records still get increasing times. */
export interface MovableClock extends Clock {
  advance(ms: number): void;
}

export function movableClock(): MovableClock {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/** Another instance of a harness's service, with its own pool, and its database (to run the expiry sweep from it). */
export interface ClockedInstance {
  readonly request: Harness['request'];
  readonly database: Database;
  close(): Promise<void>;
}

/**
 * Another instance of `h`'s service on its PostgreSQL database at `url`, as
 * test/support/second-instance.ts makes one, reading `clock` (the one `h` was made with):
 * both instances then see a hold run out at the same moment.
 */
export async function instanceWithClock(h: Harness, url: string, clock: Clock, options: { statementTimeoutMs?: number } = {}): Promise<ClockedInstance> {
  const database = openPostgres({ connectionString: url, poolSize: 25, statementTimeoutMs: options.statementTimeoutMs ?? 5000 });
  const { signer } = await chooseEs512Signer(h.config.es512Signer);
  const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json'), signer }, Math.floor(Date.now() / 1000));
  const app = await buildApp(h.config, { database, keys, logger: false, clock });
  await app.server.ready();
  return {
    request: requestsTo(app),
    database,
    async close() {
      await app.server.close();
      await database.close();
    },
  };
}
