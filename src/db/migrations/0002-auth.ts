import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';

/** Client keys and the replay cache of client assertions and DPoP proofs. */
export function authMigration(dialect: SqlDialect): Migration {
  const timestamp = sql.raw(dialect.columnType('timestamp'));
  return {
    async up(db: Db) {
      await db.schema
        .createTable('api_client_keys')
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('kid', 'text', (c) => c.notNull())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('jwk', 'text', (c) => c.notNull())
        .addColumn('thumbprint', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('active_until', timestamp)
        .addPrimaryKeyConstraint('api_client_keys_pk', ['client_id', 'kid'])
        .execute();
      // Keyed on (namespace, key) = (iss, jti) for assertions and (jkt, jti) for proofs; the
      // primary key makes "first use wins" one atomic insert.
      await db.schema
        .createTable('replay_cache')
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('replay_cache_pk', ['namespace', 'key'])
        .execute();
      await db.schema.createIndex('replay_cache_expires_idx').on('replay_cache').column('expires_at').execute();
    },
  };
}
