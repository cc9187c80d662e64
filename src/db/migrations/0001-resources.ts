import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { resources } from '../../registry/index.js';
import { createResourceTable } from '../schema.js';

/**
 * The 13 resource tables as the registry defines them at schema version 1. Later field
 * changes get migrations of their own; `test/api/schema` checks the live schema against
 * the registry so the two cannot drift apart unnoticed.
 */
export function resourcesMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      for (const resource of resources) await createResourceTable(db, dialect, resource);
    },
  };
}
