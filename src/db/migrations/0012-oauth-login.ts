import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/**
 * OAuth2 login with external OpenID providers: the pending authorization requests (state,
 * nonce and PKCE verifier kept server-side, consumed once) and the one-time login codes
 * the callback hands to the application. Both are keyed by an HMAC of the secret value, so
 * the database never holds a usable state or code. Times are epoch milliseconds.
 */
export function oauthLoginMigration(dialect: SqlDialect): Migration {
  const text = sql.raw(dialect.columnType('string'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('oauth_states')
        .addColumn('state_hash', text, (c) => c.primaryKey())
        .addColumn('provider', text, (c) => c.notNull())
        .addColumn('tenant_id', text, (c) => c.notNull())
        .addColumn('redirect_uri', text, (c) => c.notNull())
        .addColumn('app_state', text)
        .addColumn('code_verifier', text, (c) => c.notNull())
        .addColumn('nonce', text, (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('oauth_states_expires_idx').on('oauth_states').column('expires_at').execute();
      await db.schema
        .createTable('oauth_login_codes')
        .addColumn('code_hash', text, (c) => c.primaryKey())
        .addColumn('provider', text, (c) => c.notNull())
        .addColumn('tenant_id', text, (c) => c.notNull())
        .addColumn('user_id', text, (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('oauth_login_codes_expires_idx').on('oauth_login_codes').column('expires_at').execute();
    },
  };
}
