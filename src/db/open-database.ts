import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { Database } from './dialect.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/** Opens the database the configuration names: PostgreSQL for `DATABASE_URL`, else SQLite in `DATA_DIR`. */
export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'dbPoolSize' | 'dbStatementTimeoutMs'>): Database {
  if (config.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(config.databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// URL');
    return openPostgres({
      connectionString: config.databaseUrl,
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.dbStatementTimeoutMs,
    });
  }
  return openSqlite(join(config.dataDir, 'booking.sqlite'), { statementTimeoutMs: config.dbStatementTimeoutMs });
}
