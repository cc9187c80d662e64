import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../src/config/config.js';
import { acquireDataDirLock } from '../src/db/data-dir-lock.js';
import type { Database, Db } from '../src/db/dialect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openPostgres, postgresDialect } from '../src/db/postgres.js';
import { runtimeStateTables } from '../src/db/service-tables.js';
import { openSqlite, sqliteDialect } from '../src/db/sqlite.js';
import type { FieldType } from '../src/registry/types.js';
import { databaseFile } from './backup.js';
import { OperatorError, requireOption, usageError } from './operator-error.js';

/**
 * `move-to-postgres --to postgres://…`: copies every table of DATA_DIR's SQLite database
 * into an empty PostgreSQL database (docs/operations.md "Moving from SQLite to PostgreSQL").
 *
 * 1. Holds the data directory's lock (refused while a server runs on it) and brings both
 *    databases to the latest schema level with the ordinary migrations.
 * 2. In ONE PostgreSQL transaction: locks the target tables, refuses unless every one is
 *    empty, copies each table in batches (dependency order if foreign keys exist), moves
 *    sequences past the copied values, then reads every table back and compares row counts
 *    and a checksum over a canonical form of each row with the source. Any difference or
 *    error rolls everything back: the target is left empty and the command can be re-run.
 * 3. After the commit, `VACUUM (ANALYZE)` of the copied tables, so the service starts with
 *    planner statistics (a failure there is reported; the move stands).
 *
 * The run-time state tables (`runtimeStateTables`: background job leases) are not data: they
 * are neither copied nor counted, checksummed or required to be empty in the target; the
 * report gives their source row counts under `not_copied`.
 *
 * Values convert through the dialects: SQLite's stored form → API form
 * (`sqliteDialect.fromDb`) → PostgreSQL's stored form (`postgresDialect.toDb`), with the
 * field type read from the target column (boolean, timestamptz, jsonb, integer, …).
 */

type ColumnKind = FieldType | 'raw';

interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
}

interface TablePlan {
  readonly table: string;
  readonly columns: readonly Column[];
}

/** Per table: rows copied and the checksum both sides agree on. */
export interface TableReport {
  readonly rows: number;
  readonly checksum: string;
}

const kindOfUdt: Record<string, FieldType> = {
  bool: 'boolean',
  timestamptz: 'timestamp',
  timestamp: 'timestamp',
  jsonb: 'object',
  json: 'object',
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  float4: 'number',
  float8: 'number',
  numeric: 'number',
  text: 'string',
  varchar: 'string',
};

const readBatch = 1000;

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/** JSON with object keys sorted at every level (jsonb does not keep key order). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A value in API form, normalised so both databases' readings compare equal. */
function canonical(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'timestamp': {
      const time = new Date(String(value));
      if (Number.isNaN(time.getTime())) throw new Error(`${JSON.stringify(value)} is not a timestamp`);
      return time.toISOString();
    }
    case 'object':
    case 'string_list':
      return canonicalJson(value);
    case 'boolean':
      return Boolean(value);
    case 'integer':
    case 'number':
      return Number(value);
    case 'raw':
      return Buffer.isBuffer(value) ? value.toString('base64') : String(value);
    default:
      return value;
  }
}

/** Accumulates an order-independent checksum: SHA-256 over the sorted row digests. */
class TableChecksum {
  readonly #digests: string[] = [];

  add(plan: TablePlan, row: Record<string, unknown>, fromDb: (kind: FieldType, value: unknown) => unknown): void {
    const values = plan.columns.map((c) => canonical(c.kind, c.kind === 'raw' ? row[c.name] : fromDb(c.kind, row[c.name])));
    this.#digests.push(createHash('sha256').update(JSON.stringify(values)).digest('hex'));
  }

  get rows(): number {
    return this.#digests.length;
  }

  digest(): string {
    const hash = createHash('sha256');
    for (const digest of this.#digests.sort()) hash.update(digest);
    return hash.digest('hex');
  }
}

async function sourceTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name`.execute(db);
  return rows.map((r) => r.name);
}

async function sourceColumns(db: Db, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table}) order by cid`.execute(db);
  return rows.map((r) => r.name);
}

async function countRows(db: Db, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Every source table must exist in the target with its columns; empty leftovers of SQLite's
 * own bookkeeping are skipped, and the run-time state tables are left behind (`notCopied`:
 * their rows in the source).
 */
async function planTables(source: Database, target: Database): Promise<{ plans: TablePlan[]; skipped: string[]; notCopied: Record<string, number> }> {
  const { rows: targetColumns } = await sql<{ table_name: string; column_name: string; udt_name: string }>`
    select table_name, column_name, udt_name from information_schema.columns where table_schema = current_schema()`.execute(target.db);
  const columnsOf = new Map<string, Map<string, string>>();
  for (const row of targetColumns) {
    const table = columnsOf.get(row.table_name) ?? new Map<string, string>();
    table.set(row.column_name, row.udt_name);
    columnsOf.set(row.table_name, table);
  }
  const plans: TablePlan[] = [];
  const skipped: string[] = [];
  const notCopied: Record<string, number> = {};
  const runtimeState = new Set<string>(runtimeStateTables);
  for (const table of await sourceTables(source.db)) {
    if (runtimeState.has(table)) {
      notCopied[table] = await countRows(source.db, table);
      continue;
    }
    const there = columnsOf.get(table);
    if (!there) {
      if ((await countRows(source.db, table)) === 0) {
        skipped.push(table);
        continue;
      }
      throw new OperatorError('schema_mismatch', `table ${table} exists in the SQLite database but not in the PostgreSQL one`);
    }
    const names = await sourceColumns(source.db, table);
    const missing = names.filter((name) => !there.has(name));
    if (missing.length > 0) throw new OperatorError('schema_mismatch', `table ${table}: columns ${missing.join(', ')} are missing in the PostgreSQL database`);
    plans.push({ table, columns: names.map((name) => ({ name, kind: kindOfUdt[there.get(name) ?? ''] ?? 'raw' })) });
  }
  return { plans, skipped, notCopied };
}

/** Tables in an order that inserts every referenced row before its referrers (by name otherwise). */
async function dependencyOrder(target: Db, plans: readonly TablePlan[]): Promise<TablePlan[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and c.relnamespace = current_schema()::regnamespace`.execute(target);
  const ordered: TablePlan[] = [];
  const placed = new Set<string>();
  let pending = [...plans].sort((a, b) => (a.table < b.table ? -1 : 1));
  while (pending.length > 0) {
    const ready = pending.filter((plan) => rows.every((fk) => fk.child !== plan.table || fk.parent === plan.table || placed.has(fk.parent) || !pending.some((p) => p.table === fk.parent)));
    if (ready.length === 0) throw new OperatorError('schema_mismatch', `foreign keys form a cycle among ${pending.map((p) => p.table).join(', ')}`);
    for (const plan of ready) {
      ordered.push(plan);
      placed.add(plan.table);
    }
    pending = pending.filter((plan) => !placed.has(plan.table));
  }
  return ordered;
}

/** Copies one table in batches; returns the source's checksum. */
async function copyTable(source: Db, trx: Db, plan: TablePlan): Promise<TableChecksum> {
  const checksum = new TableChecksum();
  const columnList = sql.join(plan.columns.map((c) => sql.ref(c.name)));
  // PostgreSQL takes at most 65535 parameters per statement.
  const batch = Math.max(1, Math.min(readBatch, Math.floor(30_000 / plan.columns.length)));
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const { rows } = await sql<Record<string, unknown>>`select rowid as __move_rowid, ${columnList} from ${sql.table(plan.table)} where rowid > ${after} order by rowid limit ${batch}`.execute(source);
    if (rows.length === 0) return checksum;
    try {
      const values = rows.map((row) => {
        checksum.add(plan, row, (kind, value) => sqliteDialect.fromDb(kind, value));
        return sql`(${sql.join(plan.columns.map((c) => (c.kind === 'raw' ? row[c.name] : postgresDialect.toDb(c.kind, sqliteDialect.fromDb(c.kind, row[c.name])))))})`;
      });
      await sql`insert into ${sql.table(plan.table)} (${columnList}) values ${sql.join(values)}`.execute(trx);
    } catch (error) {
      const range = `${String(rows[0]?.__move_rowid)}..${String(rows[rows.length - 1]?.__move_rowid)}`;
      throw new OperatorError('copy_failed', `table ${plan.table}, rows with rowid ${range}: ${(error as Error).message}; nothing was committed`);
    }
    after = Number(rows[rows.length - 1]?.__move_rowid);
  }
}

/** Reads a copied table back through a cursor (any size, no ordering needed). */
async function targetChecksum(trx: Db, plan: TablePlan): Promise<TableChecksum> {
  const checksum = new TableChecksum();
  const cursor = sql.id(`move_${plan.table}`);
  await sql`declare ${cursor} no scroll cursor for select ${sql.join(plan.columns.map((c) => sql.ref(c.name)))} from ${sql.table(plan.table)}`.execute(trx);
  for (;;) {
    const { rows } = await sql<Record<string, unknown>>`fetch ${sql.raw(String(readBatch))} from ${cursor}`.execute(trx);
    for (const row of rows) checksum.add(plan, row, (kind, value) => postgresDialect.fromDb(kind, value));
    if (rows.length < readBatch) break;
  }
  await sql`close ${cursor}`.execute(trx);
  return checksum;
}

/** Moves serial/identity sequences past the copied values; returns what was set. */
async function fixSequences(trx: Db, tables: ReadonlySet<string>): Promise<Record<string, number>> {
  const { rows } = await sql<{ table_name: string; column_name: string; sequence: string | null }>`
    select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name::text), column_name::text) as sequence
    from information_schema.columns
    where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(trx);
  const set: Record<string, number> = {};
  for (const row of rows) {
    if (!row.sequence || !tables.has(row.table_name)) continue;
    const { rows: next } = await sql<{ value: number }>`select setval(${row.sequence}, coalesce(max(${sql.ref(row.column_name)}), 0) + 1, false) as value from ${sql.table(row.table_name)}`.execute(
      trx,
    );
    set[row.sequence] = Number(next[0]?.value ?? 0);
  }
  return set;
}

/** `move-to-postgres`: see the module comment. */
export async function moveToPostgres(config: Pick<Config, 'dataDir' | 'dbStatementTimeoutMs'>, options: { to: string | undefined }): Promise<Record<string, unknown>> {
  const to = requireOption(options.to, '--to', ' (a postgres:// URL)');
  if (!/^postgres(ql)?:\/\//.test(to)) throw usageError('--to must be a postgres:// URL', '--to');
  const file = resolve(join(config.dataDir, databaseFile));
  if (!existsSync(file)) throw new OperatorError('not_found', `no SQLite database at ${file} (DATA_DIR)`);
  const started = Date.now();
  const lock = acquireDataDirLock(config.dataDir, 'move-to-postgres');
  let source: Database | undefined;
  let target: Database | undefined;
  try {
    source = openSqlite(file);
    target = openPostgres({ connectionString: to, poolSize: 2, statementTimeoutMs: config.dbStatementTimeoutMs });
    return await move(source, target, file, to, started);
  } finally {
    await target?.close();
    await source?.close();
    lock.release();
  }
}

async function move(source: Database, target: Database, file: string, to: string, started: number): Promise<Record<string, unknown>> {
  await migrateToLatest(source);
  try {
    await migrateToLatest(target);
  } catch (error) {
    const cause = (error as Error).cause instanceof Error ? `: ${((error as Error).cause as Error).message}` : '';
    throw new OperatorError('target_unavailable', `cannot prepare ${redact(to)}: ${(error as Error).message}${cause}`);
  }
  const { rows: applied } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(source.db);
  const { plans, skipped, notCopied } = await planTables(source, target);
  const ordered = await dependencyOrder(target.db, plans);
  const report = await target.db.transaction().execute(async (trx) => {
    await sql`set local statement_timeout = 0`.execute(trx);
    // Nobody else writes the target meanwhile; a second move waits here, then refuses.
    await sql`lock table ${sql.join(ordered.map((p) => sql.table(p.table)))} in exclusive mode`.execute(trx);
    const occupied: Record<string, number> = {};
    for (const plan of ordered) {
      const rows = await countRows(trx, plan.table);
      if (rows > 0) occupied[plan.table] = rows;
    }
    if (Object.keys(occupied).length > 0)
      throw new OperatorError('target_not_empty', `${redact(to)} already holds data (${Object.keys(occupied).join(', ')}); move-to-postgres needs an empty database`, { tables: occupied });
    const tables: Record<string, TableReport> = {};
    for (const plan of ordered) {
      const copied = await copyTable(source.db, trx, plan);
      tables[plan.table] = { rows: copied.rows, checksum: copied.digest() };
    }
    const sequences = await fixSequences(trx, new Set(ordered.map((p) => p.table)));
    const mismatches: Record<string, { source: TableReport; target: TableReport }> = {};
    for (const plan of ordered) {
      const read = await targetChecksum(trx, plan);
      const copied = tables[plan.table] as TableReport;
      const back = { rows: read.rows, checksum: read.digest() };
      if (back.rows !== copied.rows || back.checksum !== copied.checksum) mismatches[plan.table] = { source: copied, target: back };
    }
    if (Object.keys(mismatches).length > 0)
      throw new OperatorError('verification_failed', `the copy differs from the source in ${Object.keys(mismatches).join(', ')}; nothing was committed`, { tables: mismatches });
    return { tables, sequences };
  });
  const statistics = await gatherStatistics(
    target,
    ordered.map((plan) => plan.table),
  );
  const totalRows = Object.values(report.tables).reduce((sum, t) => sum + t.rows, 0);
  return {
    moved: true,
    from: file,
    to: redact(to),
    schema_version: applied[applied.length - 1]?.name ?? '',
    verified: 'row counts and per-table checksums match',
    tables: report.tables,
    total_rows: totalRows,
    skipped,
    not_copied: notCopied,
    sequences: report.sequences,
    statistics,
    duration_ms: Date.now() - started,
    next: 'set DATABASE_URL to the target and start the service with the same DATA_DIR (signing keys, data key)',
  };
}

/**
 * `VACUUM (ANALYZE)` of the copied tables, after the copy committed: the service then starts
 * with the planner's statistics and with every page marked all-visible (index-only scans,
 * hint bits set), as autovacuum would leave the tables only some minutes later. A failure
 * here loses nothing (the data is committed and verified; autovacuum gets to it), so it is
 * reported, not thrown.
 */
async function gatherStatistics(target: Database, tables: readonly string[]): Promise<Record<string, unknown>> {
  const started = Date.now();
  try {
    await target.db.connection().execute(async (connection) => {
      // One connection: the session's timeout is lifted for the vacuum only (it cannot run in a transaction).
      await sql`set statement_timeout = 0`.execute(connection);
      try {
        await sql`vacuum (analyze) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(connection);
      } finally {
        await sql`reset statement_timeout`.execute(connection);
      }
    });
    return { vacuumed_and_analyzed: tables.length, duration_ms: Date.now() - started };
  } catch (error) {
    return { error: `vacuum (analyze) failed, autovacuum will gather the statistics later: ${(error as Error).message}` };
  }
}
