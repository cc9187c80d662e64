import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * End-user sign-in: one-time-password challenges, the deployment-wide daily message
 * counters, TOTP enrolments and second-factor challenges. Times are epoch milliseconds.
 */
export function signInMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('otp_challenges')
        .addColumn('_id', text, (c) => c.primaryKey())
        .addColumn('tenant_id', text, (c) => c.notNull())
        .addColumn('channel', text, (c) => c.notNull())
        .addColumn('destination_key', text, (c) => c.notNull())
        .addColumn('user_id', text)
        .addColumn('code_hash', text, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('otp_challenges_destination_idx').on('otp_challenges').columns(['destination_key', 'created_at']).execute();
      await db.schema
        .createTable('otp_daily_counts')
        .addColumn('day', text, (c) => c.notNull())
        .addColumn('channel', text, (c) => c.notNull())
        .addColumn('sent', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('otp_daily_counts_pk', ['day', 'channel'])
        .execute();
      await db.schema
        .createTable('user_totp')
        .addColumn('user_id', text, (c) => c.primaryKey())
        .addColumn('secret', text, (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('last_step', 'bigint', (c) => c.notNull())
        .addColumn('recovery_codes', text, (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('mfa_challenges')
        .addColumn('token_hash', text, (c) => c.primaryKey())
        .addColumn('user_id', text, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
    },
  };
}
