import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { ensureDataDir } from '../lib/data-dir.js';
import type { Database } from './dialect.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/** Opens the database the configuration names: PostgreSQL for `DATABASE_URL`, else SQLite in `DATA_DIR`. */
export function openDatabase(config: Pick<Config, 'databaseUrl' | 'databaseDirectUrl' | 'dataDir' | 'dbPoolSize' | 'dbStatementTimeoutMs'>, sqlite: { busyTimeoutMs?: number } = {}): Database {
  if (config.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(config.databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// URL');
    if (config.databaseDirectUrl !== undefined && !/^postgres(ql)?:\/\//.test(config.databaseDirectUrl)) throw new Error('DATABASE_DIRECT_URL must be a postgres:// URL');
    return openPostgres({
      connectionString: config.databaseUrl,
      ...(config.databaseDirectUrl === undefined ? {} : { directConnectionString: config.databaseDirectUrl }),
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.dbStatementTimeoutMs,
    });
  }
  if (config.databaseDirectUrl) throw new Error('DATABASE_DIRECT_URL needs DATABASE_URL');
  ensureDataDir(config.dataDir);
  return openSqlite(join(config.dataDir, 'booking.sqlite'), { statementTimeoutMs: config.dbStatementTimeoutMs, ...sqlite });
}
