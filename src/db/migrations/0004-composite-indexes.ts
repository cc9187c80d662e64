import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { resources } from '../../registry/index.js';
import { createCompositeIndexes } from '../schema.js';

/**
 * Composite, partial indexes the registry declares (e.g. bookings by status and start time):
 * a filtered, sorted page then walks one index range and stops after the page, and the
 * total is counted from the index alone.
 */
export function compositeIndexMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      for (const resource of resources) await createCompositeIndexes(db, dialect, resource);
    },
  };
}
