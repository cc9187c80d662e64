import { Migrator } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import type { Database } from './dialect.js';
import { resourcesMigration } from './migrations/0001-resources.js';
import { authMigration } from './migrations/0002-auth.js';
import { auditMigration } from './migrations/0003-audit.js';
import { compositeIndexMigration } from './migrations/0004-composite-indexes.js';

/** All migrations in order; names sort lexically. */
function migrations(database: Database): Record<string, Migration> {
  return {
    '0001-resources': resourcesMigration(database.dialect),
    '0002-auth': authMigration(database.dialect),
    '0003-audit': auditMigration(database.dialect),
    '0004-composite-indexes': compositeIndexMigration(database.dialect),
  };
}

export interface MigrationReport {
  readonly applied: readonly string[];
}

/**
 * Brings the schema to the latest version. Safe when several instances start together:
 * the run holds the dialect's exclusive lock, and Kysely records what was applied.
 */
export async function migrateToLatest(database: Database): Promise<MigrationReport> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database) };
  return database.dialect.withExclusiveLock(database.db, async (db) => {
    const migrator = new Migrator({ db, provider });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw new Error('database migration failed', { cause: error });
    return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
  });
}

/** True when every known migration has been applied (readiness). */
export async function migrationsComplete(database: Database): Promise<boolean> {
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations(database) } });
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
