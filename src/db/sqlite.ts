import { closeSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import type { DatabaseConnection, Driver, Expression, QueryCompiler, RawBuilder, SqliteDatabase, SqliteDialectConfig, SqliteStatement, SqlBool } from 'kysely';
import { makeDirectory } from '../lib/data-dir.js';
import type { FieldType, StoredValue } from '../registry/types.js';
import { ChangeFeed } from './change-feed.js';
import { notNow, registerDirectRead } from './direct-read.js';
import type { Database, SqlDialect, Tables } from './dialect.js';
import { compileRegex } from './regex-cache.js';
import { RowReader } from './sqlite-rows.js';

const columnTypes: Record<FieldType, string> = {
  string: 'text',
  reference: 'text',
  integer: 'integer',
  number: 'real',
  boolean: 'integer',
  timestamp: 'text',
  string_list: 'text',
  object: 'text',
};

/** SQLite: booleans as 0/1, timestamps as normalised ISO text (sorts lexically), JSON as text. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  supportsRowLocks: false,
  columnType: (type) => columnTypes[type],
  introspectedType: (type) => columnTypes[type],
  async listIndexes(db, table) {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
    return rows.map((row) => row.name);
  },
  toDb<T extends FieldType>(type: T, value: unknown) {
    if (value === null || value === undefined) return null;
    // The value was validated against the field's schema: it has the type's API form.
    if (type === 'boolean') return (value ? 1 : 0) as StoredValue[T];
    if (type === 'string_list' || type === 'object') return JSON.stringify(value) as StoredValue[T];
    return value as StoredValue[T];
  },
  fromDb(type, value) {
    if (value === null || value === undefined) return null;
    if (type === 'boolean') return value === 1 || value === true;
    if (type === 'string_list' || type === 'object') return JSON.parse(String(value)) as unknown;
    return value;
  },
  regexMatch(column: Expression<unknown>, pattern: string, caseInsensitive: boolean): RawBuilder<SqlBool> {
    return sql<SqlBool>`re2_match(${column}, ${pattern}, ${caseInsensitive ? 'i' : ''})`;
  },
  lowerCase: (value) => sql<string>`unicode_lower(${value})`,
  indexColumn: (name) => sql`${sql.ref(name)}`,
  sortKeyAfterFilter: (column) => sql`+${column}`,
  // Several processes (server, CLI) may start on one fresh file: BEGIN IMMEDIATE takes the
  // write lock for the whole migration run (SQLite DDL needs no transaction of Kysely's).
  withExclusiveLock: (db, fn) =>
    db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection);
      try {
        const result = await fn(connection);
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        await sql`rollback`.execute(connection);
        throw error;
      }
    }),
  // Writers are serialised (one connection in-process, the file's write lock across processes).
  tryTransactionLock: async () => true,
  async protectAppendOnly(db, table) {
    // SQLite triggers cannot read session state, so the gate is a table the purge
    // transaction writes to and empties again before commit; writers are serialised, so
    // no other transaction ever sees it open.
    await sql`create table if not exists append_only_gate (open integer not null)`.execute(db);
    await sql.raw(`create trigger if not exists ${table}_no_update before update on ${table} begin select raise(abort, '${table} is append-only'); end`).execute(db);
    await sql
      .raw(
        `create trigger if not exists ${table}_no_delete before delete on ${table} when not exists (select 1 from append_only_gate where open = 1) begin select raise(abort, '${table} is append-only'); end`,
      )
      .execute(db);
  },
  // One process per file in production; the CLI's changes reach a server by cache TTL.
  notify: async () => undefined,
  async refreshStatistics(db) {
    // 0x10002: check every table, even ones this connection has not used yet (SQLite's
    // advice for a connection that has just opened); analysis_limit keeps it quick.
    await sql`pragma optimize = 0x10002`.execute(db);
  },
  async withPurgeGate(trx, fn) {
    await sql`insert into append_only_gate (open) values (1)`.execute(trx);
    const result = await fn();
    await sql`delete from append_only_gate`.execute(trx);
    return result;
  },
};

/** Kysely's SQLite dialect with a driver that tells whether its connection is in use. */
class TrackedSqliteDialect extends SqliteDialect {
  readonly driver: TrackedDriver;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.driver = new TrackedDriver(super.createDriver());
  }

  override createDriver(): Driver {
    return this.driver;
  }
}

/**
 * Kysely's SQLite driver, counting whether anyone holds its one connection (a query, a
 * transaction or a stream between acquire and release).
 */
class TrackedDriver implements Driver {
  held = 0;

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    this.held += 1;
    return connection;
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.held -= 1;
    return this.inner.releaseConnection(connection);
  }

  /**
   * `BEGIN IMMEDIATE`: the write lock at the start, waiting up to the busy timeout for
   * another process (the CLI beside the server, a second instance) to release it. A plain
   * (deferred) BEGIN that reads first takes the lock only at its first write, and in WAL
   * mode SQLite then calls no busy handler: the write fails at once with "database is
   * locked". In one process the single connection runs one transaction at a time anyway.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** A prepared statement and, for a read, the reader that builds its rows. */
interface PreparedStatement {
  readonly statement: BetterSqlite3.Statement;
  readonly rows: RowReader | undefined;
  /** Whether running it changes the schema (column names may change with it). */
  readonly changesSchema: boolean;
}

/** Statements that change the schema (SQLite re-prepares what they touch; column names may change). */
const schemaStatement = /^\s*(create|alter|drop)\b/i;

/** The error `re2_match` throws once a statement has used up its time budget. */
export function regexBudgetExceeded(): Error {
  return Object.assign(new Error('regex evaluation exceeded the statement time budget'), { code: 'SQLITE_REGEX_TIMEOUT' });
}

/**
 * Opens (creating if needed) the SQLite file, tuned for one writer and many readers.
 * `statementTimeoutMs` bounds the time `$regex` matching may use in one statement: SQLite
 * has no statement timeout and runs in this process, so a costly (if linear) pattern over
 * many rows would otherwise block every other request. `busyTimeoutMs` (5 s) is how long a
 * statement waits for another process's write lock before failing as busy.
 */
export function openSqlite(file: string, options: { statementTimeoutMs?: number; busyTimeoutMs?: number; now?: () => number } = {}): Database {
  const budgetMs = options.statementTimeoutMs ?? 5000;
  const clock = options.now ?? (() => performance.now());
  if (file !== ':memory:') {
    // The file holds personal data and the audit trail's subject keys: owner only, like the
    // data key. SQLite gives its -wal and -shm files the database file's mode.
    makeDirectory(dirname(file), 0o700);
    closeSync(openSync(file, 'a', 0o600));
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const raw = new BetterSqlite3(file, { timeout: busyTimeoutMs });
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = OFF');
  // Freed space is zeroed when its page is written anyway (no extra I/O): an erased value
  // does not linger beside the row that replaced it (`purgeOverwritten` does the log).
  raw.pragma('secure_delete = FAST');
  // Bounds each table's ANALYZE (PRAGMA optimize) to a sample: milliseconds, at any size.
  raw.pragma('analysis_limit = 1000');
  // RE2 semantics (linear time) for $regex: SQLite has no regex engine of its own.
  // Each statement starts a fresh budget; statements run synchronously, so the budget
  // spans exactly one statement's regex evaluations.
  let statementStarted = 0;
  raw.function('re2_match', { deterministic: true }, (value: unknown, pattern: unknown, flags: unknown) => {
    if (clock() - statementStarted > budgetMs) throw regexBudgetExceeded();
    if (typeof value !== 'string' || typeof pattern !== 'string') return 0;
    return compileRegex(pattern, flags === 'i').test(value) ? 1 : 0;
  });
  // JavaScript's lower-casing, for comparisons with text lower-cased in JavaScript (`lowerCase`).
  raw.function('unicode_lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  // Kysely prepares every query anew; reusing prepared statements by SQL text saves the
  // parse and plan. A statement still busy (an open iterator) is not shared. A read's rows
  // are built by a RowReader (`sqlite-rows.ts`), which remembers the statement's column
  // names: a schema statement run here drops them all, so no name outlives a renamed column.
  const prepared = new Map<string, PreparedStatement>();
  const statementFor = (text: string): PreparedStatement => {
    let entry = prepared.get(text);
    if (!entry || entry.statement.busy) {
      const statement = raw.prepare(text);
      entry = { statement, rows: statement.reader ? new RowReader(statement) : undefined, changesSchema: schemaStatement.test(text) };
      if (prepared.size < 2000) prepared.set(text, entry);
    }
    return entry;
  };
  const timed: SqliteDatabase = {
    close: () => raw.close(),
    prepare(text: string): SqliteStatement {
      const { statement, rows, changesSchema } = statementFor(text);
      return {
        reader: statement.reader,
        all(parameters) {
          statementStarted = clock();
          return rows ? rows.all(parameters) : statement.all(parameters);
        },
        run(parameters) {
          statementStarted = clock();
          const result = statement.run(parameters);
          if (changesSchema) prepared.clear();
          return result;
        },
        iterate(parameters) {
          statementStarted = clock();
          return rows ? rows.iterate(parameters) : statement.iterate(parameters);
        },
      };
    },
  };
  const dialect = new TrackedSqliteDialect({ database: timed });
  const { driver } = dialect;
  const db = new Kysely<Tables>({ dialect });
  // The connection is idle when Kysely holds it for nothing (no query, transaction or
  // stream) and SQLite has no transaction open: a read then runs now, as Kysely would run it.
  registerDirectRead(db, (text, parameters) => {
    if (driver.held > 0 || raw.inTransaction) return notNow;
    const { rows } = statementFor(text);
    if (!rows) return notNow;
    statementStarted = clock();
    return rows.get(parameters);
  });
  return {
    db,
    dialect: sqliteDialect,
    changes: new ChangeFeed(),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async purgeOverwritten() {
      // On Kysely's one connection, so no transaction of this process is open; without a
      // busy wait, so another process's reader (a backup) makes it incomplete, not a stall.
      return db.connection().execute(async (connection) => {
        await sql`pragma busy_timeout = 0`.execute(connection);
        try {
          const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(truncate)`.execute(connection);
          return { complete: rows[0]?.busy === 0 };
        } finally {
          await sql.raw(`pragma busy_timeout = ${busyTimeoutMs}`).execute(connection);
        }
      });
    },
    async close() {
      await db.destroy();
    },
  };
}
