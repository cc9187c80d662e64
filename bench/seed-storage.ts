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

const seeded = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Runs a scenario's seeding once per benchmark run (`run` is the run's context), however
 * many rounds measure it: with `--repeat` every round must see the same data.
 */
export function seedOnce<T>(run: object, name: string, seed: () => Promise<T>): Promise<T> {
  let byName = seeded.get(run);
  if (!byName) seeded.set(run, (byName = new Map()));
  let seeding = byName.get(name) as Promise<T> | undefined;
  if (!seeding) byName.set(name, (seeding = seed()));
  return seeding;
}
