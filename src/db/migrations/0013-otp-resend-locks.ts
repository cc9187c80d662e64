import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * One row per sign-in destination holding when its last code was sent. The 60 s resend
 * cooldown is claimed with one conditional upsert on this key, so two requests for the
 * same destination in the same instant (on any number of instances) cannot both send.
 */
export function otpResendLocksMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('otp_resend_locks')
        .addColumn('destination_key', text, (c) => c.primaryKey())
        .addColumn('sent_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('otp_resend_locks_sent_idx').on('otp_resend_locks').column('sent_at').execute();
    },
  };
}
