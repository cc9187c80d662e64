import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open-database.js';
import type { Database } from '../src/db/dialect.js';
import type { Config } from '../src/config/config.js';

/** Runs `seed` on the service's storage while no service is running, then closes it. */
export async function withStorage<T>(config: Config, seed: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database);
    return await seed(database);
  } finally {
    await database.close();
  }
}
