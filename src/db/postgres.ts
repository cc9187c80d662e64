import { CompiledQuery, Kysely, PostgresDialect, PostgresDriver, sql } from 'kysely';
import type { DatabaseConnection, Driver, Expression, PostgresDialectConfig, RawBuilder, SqlBool, TransactionSettings } from 'kysely';
import pg from 'pg';
import type { FieldType, StoredValue } from '../registry/types.js';
import { ChangeFeed, changeChannel, decodeChange } from './change-feed.js';
import type { Database, SqlDialect, Tables } from './dialect.js';

// Byte-order collation: string comparison and sorting then match SQLite exactly,
// whatever locale the database was created with. Under it PostgreSQL folds the case of
// ASCII letters only, so case-insensitive matching (`lowerCase`, `$options: "i"`) takes the
// database's default collation: its LC_CTYPE decides, as for any text there.
const columnTypes: Record<FieldType, string> = {
  string: 'text collate "C"',
  reference: 'text collate "C"',
  integer: 'integer',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  string_list: 'jsonb',
  object: 'jsonb',
};

/** Column types as `information_schema`/Kysely's introspection names them. */
const introspectedTypes: Record<FieldType, string> = {
  string: 'text',
  reference: 'text',
  integer: 'int4',
  number: 'float8',
  boolean: 'bool',
  timestamp: 'timestamptz',
  string_list: 'jsonb',
  object: 'jsonb',
};

/** Arbitrary constant naming this service's migration lock. */
const migrationLockKey = 727_304_561;
/** The first key of transaction-level try-locks ({@link SqlDialect.tryTransactionLock}); the second is a hash of the name. */
const transactionLockClass = 727_304_562;
const INT8 = 20;
const TIMESTAMPTZ = 1184;

/** `timestamptz` text as PostgreSQL writes it (DateStyle ISO): `2026-03-01 09:30:00.123+00`, `…+05:30`. */
const isoStyle = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/**
 * A `timestamptz` as the API's ISO string, truncated to milliseconds like `Date`.
 * `new Date()` on PostgreSQL's format takes V8's slow legacy parser (a visible share of a
 * list request's CPU), so the text is rearranged here. UTC text (`…:SS[.ffffff]+00`, the common
 * case) is sliced without a regex, which allocated a dozen captures per value; other
 * offsets are read with {@link isoStyle}; anything else (years before 1000, BC, infinity)
 * still goes through `Date`.
 */
export function timestamptzToIso(value: string): string {
  const n = value.length;
  // 'YYYY-MM-DD HH:MM:SS+00' is 22 characters; a fraction adds '.f' to '.ffffff'.
  if (n >= 22 && value.charCodeAt(10) === 32 && value.charCodeAt(n - 3) === 43 && value.endsWith('00') && value >= '1000') {
    if (n === 22) return `${value.slice(0, 10)}T${value.slice(11, 19)}.000Z`;
    if (value.charCodeAt(19) === 46 && n <= 29) {
      const fraction = value.slice(20, Math.min(23, n - 3));
      return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction.length === 3 ? fraction : fraction.padEnd(3, '0')}Z`;
    }
  }
  const m = isoStyle.exec(value);
  if (!m || value < '1000') return new Date(value).toISOString();
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours, offsetMinutes = '00', offsetSeconds = '00'] = m;
  const millis = fraction.slice(0, 3).padEnd(3, '0');
  const offset = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000 * (sign === '-' ? -1 : 1);
  const local = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), Number(millis));
  return new Date(local - offset).toISOString();
}

/** Counts come back as numbers and timestamps as the API's ISO strings, whatever the session time zone. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === TIMESTAMPTZ) return timestamptzToIso;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** PostgreSQL: native boolean, timestamptz and jsonb; regexes run with a statement timeout. */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  supportsRowLocks: true,
  columnType: (type) => columnTypes[type],
  introspectedType: (type) => introspectedTypes[type],
  async listIndexes(db, table) {
    // Constraint-backed indexes (primary key, unique path) are part of the table, not the drift check.
    const { rows } = await sql<{
      name: string;
    }>`select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid where t.relname = ${table} and t.relnamespace = 'public'::regnamespace and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)`.execute(
      db,
    );
    return rows.map((row) => row.name);
  },
  toDb<T extends FieldType>(type: T, value: unknown) {
    if (value === null || value === undefined) return null;
    // pg would send JS arrays as PostgreSQL arrays; jsonb wants JSON text.
    if (type === 'string_list' || type === 'object') return JSON.stringify(value) as StoredValue[T];
    return value as StoredValue[T]; // validated against the field's schema: the type's API form
  },
  fromDb(type, value) {
    // Rows read back arrive parsed by pg; rows the service just encoded (toDb) are JSON text.
    if ((type === 'string_list' || type === 'object') && typeof value === 'string') return JSON.parse(value) as unknown;
    return value ?? null;
  },
  regexMatch(column: Expression<unknown>, pattern: string, caseInsensitive: boolean): RawBuilder<SqlBool> {
    return caseInsensitive ? sql<SqlBool>`(${column} collate "default") ~* ${pattern}` : sql<SqlBool>`${column} ~ ${pattern}`;
  },
  lowerCase: (value) => sql<string>`lower(${value} collate "default")`,
  // A backward scan of an ASC NULLS FIRST index yields DESC NULLS LAST: both sort directions.
  indexColumn: (name) => sql`${sql.ref(name)} nulls first`,
  sortKeyAfterFilter: (column) => column,
  async withExclusiveLock(db, fn) {
    // Session-level advisory lock held on one pooled connection for the whole run.
    // Waiting for another instance's migrations is not a runaway statement: lift the
    // statement timeout on this connection while it waits and migrates.
    return db.connection().execute(async (connection) => {
      await sql`set statement_timeout = 0`.execute(connection);
      await sql`select pg_advisory_lock(${migrationLockKey})`.execute(connection);
      try {
        return await fn(connection);
      } finally {
        await sql`select pg_advisory_unlock(${migrationLockKey})`.execute(connection);
        await sql`reset statement_timeout`.execute(connection);
      }
    });
  },
  async tryTransactionLock(trx, key) {
    // The two-key form: its own key space, apart from the migration lock's single key.
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${transactionLockClass}, hashtext(${key})) as locked`.execute(trx);
    return rows[0]?.locked === true;
  },
  async protectAppendOnly(db, table) {
    await sql
      .raw(
        `
      create or replace function ${table}_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' and current_setting('booking.purge_gate', true) = 'open' then
          return old;
        end if;
        raise exception '${table} is append-only' using errcode = 'insufficient_privilege';
      end $$`,
      )
      .execute(db);
    await sql.raw(`drop trigger if exists ${table}_append_only on ${table}`).execute(db);
    await sql.raw(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function ${table}_append_only()`).execute(db);
  },
  async notify(trx, channel, payload) {
    // Delivered by PostgreSQL only if and when the transaction commits.
    await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
  },
  async refreshStatistics() {
    // Autovacuum analyses changed tables on its own.
  },
  async withPurgeGate(trx, fn) {
    // Transaction-local setting: it ends with the purge transaction whatever happens.
    await sql`select set_config('booking.purge_gate', 'open', true)`.execute(trx);
    return fn();
  },
};

export interface PostgresOptions {
  readonly connectionString: string;
  /**
   * A connection straight to PostgreSQL for what needs a session of its own: LISTEN (cache
   * invalidation) and migrations (their advisory lock). Unset or equal to
   * `connectionString`: the same server. When it differs, `connectionString` is taken to
   * be a transaction pooler such as PgBouncer ({@link openPostgres}).
   */
  readonly directConnectionString?: string;
  readonly poolSize: number;
  /** Upper bound for any statement (guards $regex and runaway scans). */
  readonly statementTimeoutMs: number;
}

/**
 * Kysely's driver with the statement timeout set inside each transaction: a pooler in
 * transaction mode hands the next transaction another server connection, so a session
 * setting would neither follow this client nor stay away from others. `set local` rides in
 * the same simple-protocol message as `begin` (no extra round trip) and ends with the
 * transaction.
 */
class TransactionTimeoutDriver extends PostgresDriver {
  constructor(
    config: PostgresDialectConfig,
    private readonly statementTimeoutMs: number,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const mode = [settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : '', settings.accessMode ?? ''].filter(Boolean).join(' ');
    await connection.executeQuery(CompiledQuery.raw(`start transaction ${mode}; set local statement_timeout = ${Math.trunc(this.statementTimeoutMs)}`));
  }
}

class TransactionTimeoutDialect extends PostgresDialect {
  constructor(
    private readonly driverConfig: PostgresDialectConfig,
    private readonly statementTimeoutMs: number,
  ) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new TransactionTimeoutDriver(this.driverConfig, this.statementTimeoutMs);
  }
}

function newPool(connectionString: string, max: number, statementTimeoutMs: number | undefined, connectTimeoutMs: number, idleTimeoutMs = 10_000): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: idleTimeoutMs,
    // A startup parameter: PgBouncer refuses any it does not track, so through a pooler it is left out.
    ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    types: typeParsers,
    // A stopped or unreachable server fails a request within seconds (503), never hangs it.
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // A connection the server closes (restart, failover) emits 'error': an idle one through
  // the pool, one checked out between two queries of a transaction on itself. Unheard,
  // either ends the process; heard, the query in progress fails (503) and the pool drops
  // the broken connection and opens a new one on demand.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Opens a pooled PostgreSQL connection. With a distinct `directConnectionString` the pool
 * goes through a transaction pooler (PgBouncer `pool_mode = transaction`) and keeps no
 * session state: no startup parameters, the statement timeout set per transaction, pg's
 * unnamed statements only; LISTEN and migrations use the direct connection. A statement
 * outside a transaction then runs under the role's own `statement_timeout`
 * (docs/operations.md, "Through PgBouncer"); {@link Database.startupWarnings} says when
 * that is unbounded.
 */
export function openPostgres(options: PostgresOptions): Database {
  const direct = options.directConnectionString ?? options.connectionString;
  const pooled = direct !== options.connectionString;
  const connectTimeoutMs = Math.max(1000, Math.min(options.statementTimeoutMs, 5000));
  const pool = newPool(options.connectionString, options.poolSize, pooled ? undefined : options.statementTimeoutMs, connectTimeoutMs);
  const db = new Kysely<Tables>({ dialect: pooled ? new TransactionTimeoutDialect({ pool }, options.statementTimeoutMs) : new PostgresDialect({ pool }) });
  // Opens its one connection only when migrations run, and lets it go a second after.
  const directPool = pooled ? newPool(direct, 1, options.statementTimeoutMs, connectTimeoutMs, 1000) : undefined;
  const migrationDb = directPool ? new Kysely<Tables>({ dialect: new PostgresDialect({ pool: directPool }) }) : db;
  const changes = new ChangeFeed();
  const listener = listenForChanges(direct, changes);
  return {
    db,
    migrationDb,
    dialect: postgresDialect,
    changes,
    async ping() {
      await sql`select 1`.execute(db);
    },
    poolStats() {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    },
    async startupWarnings() {
      if (!pooled) return [];
      const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(db);
      return rows[0]?.statement_timeout === '0'
        ? ["statements outside a transaction run without a time limit through the pooler: set one for the role (alter role … set statement_timeout = '5s')"]
        : [];
    },
    async close() {
      await listener.stop();
      await db.destroy();
      if (migrationDb !== db) await migrationDb.destroy();
    },
  };
}

/**
 * Keeps one connection LISTENing on the change channel and feeds what other instances
 * announce into `changes`; reconnects after a second when the connection drops, and once
 * listening again tells `changes` that announcements may have been lost (the directories
 * drop everything; meanwhile their TTL bounds staleness). The connection never holds a pool slot.
 */
function listenForChanges(connectionString: string, changes: ChangeFeed): { stop(): Promise<void> } {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  /** Whether a listener was ever lost: what was announced meanwhile reached no one. */
  let dropped = false;
  const connect = async () => {
    if (stopped) return;
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      const change = message.payload === undefined ? undefined : decodeChange(message.payload);
      if (change) changes.emit(change);
    });
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    try {
      await next.connect();
      await next.query(`listen ${changeChannel}`);
      client = next;
      // Listening again: drop whatever the feed would have invalidated while it was down.
      if (dropped) changes.lost();
      if (stopped) await next.end().catch(() => undefined);
    } catch {
      reconnect(next);
    }
  };
  const reconnect = (failed: pg.Client) => {
    dropped = true;
    if (client === failed) client = undefined;
    failed.removeAllListeners('end');
    void failed.end().catch(() => undefined);
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(); // connect() turns its own failures into the next retry
    }, 1000);
    retry.unref();
  };
  void connect(); // in the background: until it succeeds, caches rely on their TTL
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
