import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/** Every table with an `etag` column when this migration was written (frozen, as migrations are). */
const tables = [
  'api_clients',
  'audit_logs',
  'bookings',
  'consents',
  'legal_holds',
  'orders',
  'products',
  'retention_policies',
  'service_charges',
  'subscriptions',
  'tenants',
  'users',
  'webhooks',
] as const;

/**
 * ETags used to be an unkeyed SHA-256 over the previous ETag and the full stored record, so
 * anyone who saw one could confirm guesses of fields it may not read. New versions get random
 * ETags (`core/etag.ts`); this gives every existing row a fresh random one too, one UPDATE per
 * table: 43 random hex digits, quoted (the length of the new ones, within their alphabet).
 * Clients holding an ETag from before get 412 once and read again. The audit trail refuses
 * updates in storage, so its guard steps aside for this one statement and is put back.
 */
export function randomEtagsMigration(dialect: SqlDialect): Migration {
  const fresh =
    dialect.name === 'postgres'
      ? sql.raw(`'"' || substr(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 1, 43) || '"'`)
      : sql.raw(`'"' || substr(lower(hex(randomblob(22))), 1, 43) || '"'`);
  return {
    async up(db: Db) {
      for (const table of tables) {
        const update = sql`update ${sql.table(table)} set etag = ${fresh}`;
        if (table !== 'audit_logs') {
          await update.execute(db);
          continue;
        }
        const guard = dialect.name === 'postgres' ? 'drop trigger if exists audit_logs_append_only on audit_logs' : 'drop trigger if exists audit_logs_no_update';
        await sql.raw(guard).execute(db);
        try {
          await update.execute(db);
        } finally {
          await dialect.protectAppendOnly(db, 'audit_logs');
        }
      }
    },
  };
}
