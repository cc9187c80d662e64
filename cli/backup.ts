import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Config } from '../src/config/config.js';
import { acquireDataDirLock, lockFileName } from '../src/db/data-dir-lock.js';
import { migrationNames } from '../src/db/migrate.js';
import { runtimeStateTables } from '../src/db/service-tables.js';
import { openSqlite } from '../src/db/sqlite.js';
import { OperatorError, requireOption } from './operator-error.js';
import { TarWriter, copyMember, listTar, readMember } from './tar-file.js';
import type { TarMember } from './tar-file.js';

/**
 * `backup` and `restore` of the SQLite storage (docs/operations.md "Backup and restore").
 *
 * A backup is one POSIX tar file (mode 0600) holding:
 * - `booking.sqlite`: a consistent copy made with `VACUUM INTO` in one read transaction
 *   (WAL: the running service keeps writing meanwhile; the copy is the database as of the
 *   moment the transaction began, every write acknowledged before the command started
 *   included);
 * - `signing-keys.json`: the access-token signing keys (unless `SIGNING_KEYS_FILE` supplies
 *   them), so tokens issued before the backup still verify after a restore;
 * - `data-key`: the key that encrypts webhook secrets, TOTP secrets and PKCE verifiers
 *   (unless `DATA_KEY` supplies it; then only its fingerprint is recorded);
 * - `manifest.json` (last): format, schema level, created_at, key provenance, row counts
 *   and the SHA-256 of every other member.
 * The per-subject keys of the audit trail's crypto-shredding live in the database
 * (`subject_keys`): erased subjects' keys are already destroyed in the copy.
 * `restore` empties the run-time state tables (background job leases) of what it restores:
 * they belong to the processes of the backed-up service, not to its data.
 */

export const databaseFile = 'booking.sqlite';
const signingKeysFile = 'signing-keys.json';
const dataKeyFile = 'data-key';
const manifestFile = 'manifest.json';
const format = 'booking-sqlite-backup';
const formatVersion = 1;

type StorageConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'dataKey' | 'signingKeysFile'>;

interface FileEntry {
  readonly size: number;
  readonly sha256: string;
}

/** What `manifest.json` records. */
export interface BackupManifest {
  readonly format: typeof format;
  readonly version: number;
  readonly created_at: string;
  /** The newest migration applied to the copy, and all of them. */
  readonly schema_version: string;
  readonly migrations: readonly string[];
  readonly files: Readonly<Record<string, FileEntry>>;
  readonly keys: {
    readonly signing_keys: 'included' | 'external' | 'absent';
    readonly data_key: 'included' | 'external' | 'absent';
    /** SHA-256 of the data key (identifies it without revealing it). */
    readonly data_key_sha256: string | null;
  };
  readonly tables: Readonly<Record<string, number>>;
}

function requireSqlite(config: StorageConfig, command: string): void {
  if (config.databaseUrl) throw new OperatorError('not_sqlite', `${command} works on the SQLite storage in DATA_DIR; with DATABASE_URL use PostgreSQL's own backups (pg_dump, base backups)`);
}

function dataKeyFingerprint(key: string): string {
  return createHash('sha256').update(Buffer.from(key.trim(), 'base64')).digest('hex');
}

/** Row counts of every table of an open SQLite file (bookkeeping tables of Kysely excluded). */
function tableCounts(db: BetterSqlite3.Database): Record<string, number> {
  const names = db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' order by name`).pluck().all() as string[];
  const counts: Record<string, number> = {};
  for (const name of names)
    counts[name] = Number(
      db
        .prepare(`select count(*) from "${name.replaceAll('"', '""')}"`)
        .pluck()
        .get(),
    );
  return counts;
}

function appliedMigrations(db: BetterSqlite3.Database): string[] {
  return db.prepare('select name from kysely_migration order by name').pluck().all() as string[];
}

/** `backup --to FILE`: see the module comment. Refuses to overwrite FILE. */
export function backup(config: StorageConfig, options: { to: string | undefined }): Record<string, unknown> {
  const target = resolve(requireOption(options.to, '--to', ' (a FILE)'));
  requireSqlite(config, 'backup');
  if (existsSync(target)) throw new OperatorError('exists', `${target} exists; a backup never overwrites a file`);
  if (!existsSync(dirname(target))) throw new OperatorError('not_found', `the directory ${dirname(target)} does not exist`);
  const source = join(config.dataDir, databaseFile);
  if (!existsSync(source)) throw new OperatorError('not_found', `no database at ${source} (DATA_DIR)`);
  const started = Date.now();
  const work = mkdtempSync(join(dirname(target), `.${basename(target)}.`));
  const partial = `${target}.partial`;
  try {
    const snapshot = join(work, databaseFile);
    const live = new BetterSqlite3(source, { fileMustExist: true });
    try {
      live.pragma('busy_timeout = 5000');
      // One read transaction: a consistent snapshot that never blocks the service's writer.
      live.prepare('vacuum into ?').run(snapshot);
    } finally {
      live.close();
    }
    const copy = new BetterSqlite3(snapshot, { fileMustExist: true });
    let migrations: string[];
    let tables: Record<string, number>;
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new OperatorError('corrupt', `the copy failed its integrity check: ${String(check)}`);
      migrations = appliedMigrations(copy);
      tables = tableCounts(copy);
    } finally {
      copy.close();
    }
    // Read after the snapshot: every key that signed a token before it is still in the file
    // (rotation drops only keys retired long enough for their tokens to have expired).
    const signingKeys = config.signingKeysFile ? undefined : join(config.dataDir, signingKeysFile);
    const dataKeyPath = join(config.dataDir, dataKeyFile);
    const dataKey = config.dataKey ?? (existsSync(dataKeyPath) ? readFileSync(dataKeyPath, 'utf8') : undefined);
    const fd = openSync(partial, 'wx', 0o600);
    const files: Record<string, FileEntry> = {};
    try {
      const tar = new TarWriter(fd, Math.floor(started / 1000));
      files[databaseFile] = tar.addFile(databaseFile, snapshot);
      if (signingKeys && existsSync(signingKeys)) files[signingKeysFile] = tar.addFile(signingKeysFile, signingKeys);
      if (!config.dataKey && dataKey !== undefined) files[dataKeyFile] = tar.addFile(dataKeyFile, dataKeyPath);
      const manifest: BackupManifest = {
        format,
        version: formatVersion,
        created_at: new Date(started).toISOString(),
        schema_version: migrations[migrations.length - 1] ?? '',
        migrations,
        files,
        keys: {
          signing_keys: config.signingKeysFile ? 'external' : files[signingKeysFile] ? 'included' : 'absent',
          data_key: config.dataKey ? 'external' : files[dataKeyFile] ? 'included' : 'absent',
          data_key_sha256: dataKey === undefined ? null : dataKeyFingerprint(dataKey),
        },
        tables,
      };
      tar.addBuffer(manifestFile, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
      tar.finish();
      fsyncSync(fd);
      closeSync(fd);
      renameSync(partial, target);
      return {
        backup: target,
        bytes: statSync(target).size,
        created_at: manifest.created_at,
        schema_version: manifest.schema_version,
        keys: manifest.keys,
        files,
        tables,
        duration_ms: Date.now() - started,
      };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

function readManifest(fd: number, members: readonly TarMember[]): BackupManifest {
  const entry = members.find((m) => m.name === manifestFile);
  if (!entry) throw new OperatorError('invalid_backup', 'the archive has no manifest.json; not a backup of this service');
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readMember(fd, entry).toString('utf8')) as BackupManifest;
  } catch {
    throw new OperatorError('invalid_backup', 'manifest.json is not valid JSON');
  }
  if (manifest.format !== format || manifest.version !== formatVersion) throw new OperatorError('invalid_backup', `unknown backup format ${String(manifest.format)} v${String(manifest.version)}`);
  return manifest;
}

/** Files in the target directory other than the lock: what `--force` would replace. */
function contentsOf(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name !== lockFileName && !name.startsWith(`${lockFileName}.`))
    .sort();
}

/**
 * `restore --from FILE [--force]` into DATA_DIR. Verifies the whole archive first (every
 * checksum, the schema level against this code, the data key against `DATA_KEY`), then
 * holds the data directory's lock (refused while a server runs there) and puts the files
 * in place by rename. A non-empty DATA_DIR is refused unless `--force`, which replaces the
 * database (with its WAL and shared-memory files) and the key files, nothing else.
 */
export async function restore(config: StorageConfig, options: { from: string | undefined; force: boolean }): Promise<Record<string, unknown>> {
  const from = resolve(requireOption(options.from, '--from', ' (a FILE)'));
  requireSqlite(config, 'restore');
  let fd: number;
  try {
    fd = openSync(from, 'r');
  } catch (error) {
    throw new OperatorError('not_found', `cannot open ${from}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    let members: TarMember[];
    try {
      members = listTar(fd);
    } catch (error) {
      throw new OperatorError('invalid_backup', (error as Error).message);
    }
    const manifest = readManifest(fd, members);
    const byName = new Map(members.map((m) => [m.name, m]));
    // Only the files a backup holds: a crafted name (`../x`) never reaches the file system.
    const foreign = Object.keys(manifest.files).filter((name) => ![databaseFile, signingKeysFile, dataKeyFile].includes(name));
    if (foreign.length > 0) throw new OperatorError('invalid_backup', `the manifest lists files a backup never holds: ${foreign.join(', ')}`);
    for (const [name, entry] of Object.entries(manifest.files)) {
      const member = byName.get(name);
      if (!member || member.size !== entry.size || copyMember(fd, member, null) !== entry.sha256)
        throw new OperatorError('invalid_backup', `${name} in the archive does not match its checksum; the backup is damaged`);
    }
    if (!manifest.files[databaseFile]) throw new OperatorError('invalid_backup', 'the archive holds no database');
    const dataKeyNow = config.dataKey === undefined ? undefined : dataKeyFingerprint(config.dataKey);
    if (manifest.keys.data_key === 'external' && dataKeyNow === undefined)
      throw new OperatorError('data_key_required', 'the backup was taken with DATA_KEY set; set the same DATA_KEY (or DATA_KEY_FILE) for the restore and the service');
    if (dataKeyNow !== undefined && manifest.keys.data_key_sha256 !== null && dataKeyNow !== manifest.keys.data_key_sha256)
      throw new OperatorError('data_key_mismatch', 'DATA_KEY differs from the data key of the backup: webhook and TOTP secrets would be unreadable');

    const lock = acquireDataDirLock(config.dataDir, 'restore');
    try {
      const present = contentsOf(config.dataDir);
      if (present.length > 0 && !options.force)
        throw new OperatorError('target_not_empty', `${config.dataDir} is not empty (${present.join(', ')}); restore into an empty DATA_DIR or pass --force (the service must be stopped)`, {
          present,
        });
      const staged: [string, string][] = [];
      try {
        for (const name of Object.keys(manifest.files)) {
          const member = byName.get(name) as TarMember;
          const temporary = join(config.dataDir, `${name}.restore-${process.pid}`);
          staged.push([temporary, join(config.dataDir, name)]);
          const out = openSync(temporary, 'wx', 0o600);
          try {
            copyMember(fd, member, out);
            fsyncSync(out);
          } finally {
            closeSync(out);
          }
        }
        const stagedDatabase = join(config.dataDir, `${databaseFile}.restore-${process.pid}`);
        const checked = await checkRestoredDatabase(stagedDatabase, manifest);
        const notRestored = dropRuntimeState(stagedDatabase);
        const tables = { ...checked, ...Object.fromEntries(Object.keys(notRestored).map((table) => [table, 0])) };
        // A WAL left by the replaced database would be replayed into the restored one.
        for (const suffix of ['-wal', '-shm', '-journal']) rmSync(join(config.dataDir, `${databaseFile}${suffix}`), { force: true });
        for (const [temporary, final] of staged) renameSync(temporary, final);
        staged.length = 0;
        return {
          restored: from,
          data_dir: resolve(config.dataDir),
          replaced: options.force ? present : [],
          created_at: manifest.created_at,
          schema_version: manifest.schema_version,
          keys: manifest.keys,
          files: manifest.files,
          tables,
          not_restored: notRestored,
          ...(manifest.keys.signing_keys === 'external' ? { note: 'signing keys were supplied by SIGNING_KEYS_FILE when the backup was taken; supply the same file' } : {}),
        };
      } finally {
        for (const [temporary] of staged) rmSync(temporary, { force: true });
      }
    } finally {
      lock.release();
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Empties the run-time state tables of the staged database (background job leases): they
 * name the processes that used the database the backup was taken of, and a lease carried
 * over would make the restored service skip that job's next run. Returns the rows dropped.
 */
function dropRuntimeState(file: string): Record<string, number> {
  const raw = new BetterSqlite3(file, { fileMustExist: true });
  try {
    const present = new Set(raw.prepare(`select name from sqlite_master where type = 'table'`).pluck().all() as string[]);
    const dropped: Record<string, number> = {};
    for (const table of runtimeStateTables) if (present.has(table)) dropped[table] = raw.prepare(`delete from "${table}"`).run().changes;
    return dropped;
  } finally {
    raw.close();
  }
}

/**
 * Opens the staged database: it must pass SQLite's quick check, hold the row counts the
 * manifest recorded, and carry no migration this code does not know (a backup from a newer
 * release). Older schema levels are fine: the service migrates at start.
 */
async function checkRestoredDatabase(file: string, manifest: BackupManifest): Promise<Record<string, number>> {
  const raw = new BetterSqlite3(file, { fileMustExist: true });
  let tables: Record<string, number>;
  let applied: string[];
  try {
    const check = raw.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new OperatorError('invalid_backup', `the database in the backup fails its integrity check: ${String(check)}`);
    tables = tableCounts(raw);
    applied = appliedMigrations(raw);
  } finally {
    raw.close();
  }
  for (const [table, rows] of Object.entries(manifest.tables)) {
    if (tables[table] !== rows) throw new OperatorError('invalid_backup', `table ${table} holds ${String(tables[table])} rows, the manifest says ${rows}`);
  }
  const database = openSqlite(':memory:');
  try {
    const known = new Set(migrationNames(database));
    const unknown = applied.filter((name) => !known.has(name));
    if (unknown.length > 0) throw new OperatorError('backup_too_new', `the backup's schema has migrations this release does not know (${unknown.join(', ')}); restore with the release that took it`);
  } finally {
    await database.close();
  }
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${file}${suffix}`)) unlinkSync(`${file}${suffix}`);
  return tables;
}
