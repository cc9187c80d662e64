import type { Kysely, RawBuilder, SqlBool, Expression } from 'kysely';
import type { FieldType, StoredValue } from '../registry/types.js';
import type { ChangeFeed } from './change-feed.js';
import type { ServiceTables } from './service-tables.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Resource tables are dynamic (they derive from the registry), so the schema type is open;
 * the service's own tables are typed (`service-tables.ts`).
 */
export type Tables = Record<string, Record<string, unknown>> & ServiceTables;
export type Db = Kysely<Tables>;

/**
 * Everything that differs between SQLite and PostgreSQL. `db/sqlite.ts` and
 * `db/postgres.ts` are the only implementations; no other file branches on the dialect.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /** Column type for a registry field type (used by migrations). */
  columnType(type: FieldType): string;
  /** The data type introspection reports for a column made with {@link columnType} (lower case). */
  introspectedType(type: FieldType): string;
  /** Names of the indexes on `table` (the schema-drift check compares them with the registry). */
  listIndexes(db: Db, table: string): Promise<readonly string[]>;
  /** Converts an API value (already validated) to its stored form. */
  toDb<T extends FieldType>(type: T, value: unknown): StoredValue[T] | null;
  /** Converts a stored value back to its API form. */
  fromDb(type: FieldType, value: unknown): unknown;
  /** `column` matches the RE2-checked `pattern`; never backtracks catastrophically. */
  regexMatch(column: Expression<unknown>, pattern: string, caseInsensitive: boolean): RawBuilder<SqlBool>;
  /**
   * `value` lower-cased for a case-insensitive comparison with text lower-cased by
   * JavaScript: SQLite folds every letter as `toLowerCase` does (its own `lower` folds
   * ASCII only); PostgreSQL's `lower` folds as the database's `LC_CTYPE` says.
   */
  lowerCase(value: Expression<unknown>): RawBuilder<string>;
  /**
   * An index column ordered like our sorts: NULL first ascending, last descending (so one
   * index serves both directions). SQLite's native order; PostgreSQL needs `NULLS FIRST`.
   */
  indexColumn(name: string): RawBuilder<unknown>;
  /**
   * A sort key for a query that reads every row its filter matches (the availability
   * search): the planner should choose its index for the filter and sort the matches,
   * never walk an index in sort order past rows the filter drops. SQLite's statistics
   * average the tenants, so a large tenant's city index looks no better than its
   * `created_at` index: SQLite gets `+column`, its documented way to keep an index from
   * serving a term. PostgreSQL's statistics see the skew; it gets the column unchanged.
   */
  sortKeyAfterFilter(column: RawBuilder<unknown>): RawBuilder<unknown>;
  /** Whether `SELECT … FOR UPDATE` exists (PostgreSQL); SQLite serialises writers instead. */
  readonly supportsRowLocks: boolean;
  /**
   * Runs `fn` while holding a database-wide lock, so two instances starting at once do
   * not run migrations concurrently (PostgreSQL advisory lock; SQLite's write lock).
   */
  withExclusiveLock<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Takes a lock on `key` for the rest of transaction `trx` if no other transaction holds
   * it, without waiting; false when another one does (PostgreSQL: a transaction-level
   * advisory lock, so it works behind a transaction pooler too). SQLite runs one write
   * transaction at a time, so there is never another holder: always true.
   */
  tryTransactionLock(trx: Db, key: string): Promise<boolean>;
  /**
   * Makes `table` append-only in the database itself: UPDATE always fails, DELETE fails
   * unless the transaction opened the purge gate with {@link openPurgeGate}.
   */
  protectAppendOnly(db: Db, table: string): Promise<void>;
  /**
   * Announces `payload` on `channel` to the other instances when transaction `trx` commits
   * (PostgreSQL NOTIFY); nothing on SQLite, whose processes rely on cache TTLs.
   */
  notify(trx: Db, channel: string, payload: string): Promise<void>;
  /**
   * Brings the query planner's table statistics up to date, after migrations and then
   * every few minutes (`planner-statistics.ts`): SQLite's `PRAGMA optimize`, which analyses
   * only tables that need it; PostgreSQL's autovacuum keeps its own statistics. Without
   * them SQLite may walk a tenant's whole index where a primary-key or product index would do.
   */
  refreshStatistics(db: Db): Promise<void>;
  /** Runs `fn` in transaction `trx` with deletes from append-only tables allowed (retention purges). */
  withPurgeGate<T>(trx: Db, fn: () => Promise<T>): Promise<T>;
}

/** Connection-pool numbers for metrics. */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  /** Queries waiting for a free connection. */
  readonly waiting: number;
}

/** An open database: the Kysely instance, its dialect and how to close it. */
export interface Database {
  readonly db: Db;
  readonly dialect: SqlDialect;
  /** Round trip that proves the database answers. */
  ping(): Promise<void>;
  /** Changes committed by this process and, on PostgreSQL, by every other instance. */
  readonly changes: ChangeFeed;
  /**
   * Where migrations and their exclusive lock run when that is not {@link db}: PostgreSQL's
   * direct connection (`DATABASE_DIRECT_URL`) while `db` goes through a transaction pooler,
   * which keeps no session (and so no advisory lock) from one transaction to the next.
   */
  readonly migrationDb?: Db;
  /** Conditions the operator should hear about at start-up (a pooler without a statement timeout). */
  startupWarnings?(): Promise<readonly string[]>;
  /** Pool numbers, where the driver has a pool (PostgreSQL); SQLite has none. */
  poolStats?(): PoolStats;
  /**
   * Removes from the database's files what committed changes overwrote or deleted, where
   * the engine can (after an erasure, and on every retention run). SQLite zeroes freed
   * space as it writes (`secure_delete`), so this truncates its write-ahead log, whose old
   * frames still hold earlier versions of the pages. PostgreSQL has no such operation (a
   * dead row version stays on disk until VACUUM's space is reused): not implemented.
   * Never waits for a lock: `complete` is false when a reader or writer held the log.
   */
  purgeOverwritten?(): Promise<{ readonly complete: boolean }>;
  close(): Promise<void>;
}
