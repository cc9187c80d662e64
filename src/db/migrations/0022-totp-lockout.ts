import type { Migration } from 'kysely';
import type { Db } from '../dialect.js';

/**
 * The TOTP lock-out (`src/sign-in/totp-service.ts`): consecutive refused TOTP codes of a
 * user, over every entry point, and until when further codes are refused unchecked (epoch
 * ms, 0 when not locked). In the database, so every instance counts against one number;
 * existing rows start unlocked.
 */
export function totpLockoutMigration(): Migration {
  return {
    async up(db: Db) {
      await db.schema
        .alterTable('user_totp')
        .addColumn('failed_tries', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('user_totp')
        .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
