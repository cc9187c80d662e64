import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * Products get the IANA `time_zone` their availability days and hours are local to.
 * Existing products were always answered in UTC, so the column defaults to `UTC` and every
 * existing row reads it from the start.
 */
export function productTimeZoneMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await db.schema
        .alterTable('products')
        .addColumn('time_zone', sql.raw(dialect.columnType('string')), (c) => c.notNull().defaultTo('UTC'))
        .execute();
    },
  };
}
