import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ensureDataDir } from '../lib/data-dir.js';

/** The file a process holding a data directory keeps there (`DATA_DIR/data-dir.lock`). */
export const lockFileName = 'data-dir.lock';

/** Who holds a data directory: what the lock file says. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** `server`, `restore`, `move-to-postgres`. */
  readonly purpose: string;
  readonly since: string;
}

/** The data directory is held by a live process (a running server, a restore, a move). */
export class DataDirInUseError extends Error {
  readonly code = 'data_dir_in_use';

  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`${dataDir} is in use by ${holder.purpose} (pid ${holder.pid} on ${holder.host}, since ${holder.since}); stop it first`);
  }
}

/** A held lock; `release` is idempotent and synchronous, so it also runs in an `exit` handler. */
export interface DataDirLock {
  readonly file: string;
  release(): void;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string') return undefined;
    return { pid: value.pid, host: value.host, purpose: String(value.purpose ?? 'unknown'), since: String(value.since ?? '') };
  } catch {
    return undefined;
  }
}

function readHolder(file: string): { text: string; holder: LockHolder | undefined } | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return { text, holder: parseHolder(text) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether `pid` names a live process on this machine (EPERM: alive, someone else's). A
 * zombie (killed, not yet reaped by its parent) still answers `kill(pid, 0)`, but holds
 * nothing any more: a supervisor restarting at once must not be refused for it, so its
 * state in `/proc/<pid>/stat` (`Z`, or `X` dead) counts as gone where `/proc` exists.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !exited(pid);
}

/** Whether `/proc` says `pid` has exited but not been reaped (Linux); false where it cannot tell. */
function exited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // `pid (comm) S …`: the command may hold spaces and parentheses, the state follows the last `)`.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/**
 * A holder that is certainly gone: a process of this host that no longer runs, or one
 * with our own pid (a container restarted after a crash starts again as the same pid; a
 * process takes the lock once), or a file that is not a lock (unparseable). A lock from
 * another host (a shared volume) is never taken over: its process cannot be checked here.
 */
function stale(holder: LockHolder | undefined): boolean {
  if (!holder) return true;
  return holder.host === hostname() && (holder.pid === process.pid || !alive(holder.pid));
}

/** The live holder of `dataDir`, if any (a stale lock file counts as free). */
export function dataDirHolder(dataDir: string): LockHolder | undefined {
  const found = readHolder(join(dataDir, lockFileName));
  return found && !stale(found.holder) ? found.holder : undefined;
}

/**
 * Takes the data directory for this process: the SQLite file and the key files there must
 * not be replaced (restore) or read as a whole (move) while a server writes them, and two
 * servers on one SQLite file would each believe they are the only writer.
 *
 * The lock is a file holding pid, host and purpose. The lock is linked into
 * place whole, so it is never seen half-written. A lock left by a
 * crashed process (SIGKILL, power loss) is recognised because its pid no longer runs on
 * this host, and is taken over: it is first renamed to a private name and checked to be
 * the stale file just read, so two processes taking over at once cannot both win.
 */
export function acquireDataDirLock(dataDir: string, purpose: string): DataDirLock {
  ensureDataDir(dataDir);
  const file = join(dataDir, lockFileName);
  const mine: LockHolder = { pid: process.pid, host: hostname(), purpose, since: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // Written whole under a private name, then linked into place: link() fails if the
    // lock exists, and nobody ever sees a half-written lock file.
    const draft = `${file}.${process.pid}.tmp`;
    const fd = openSync(draft, 'w', 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(draft, file);
      unlinkSync(draft);
      let released = false;
      return {
        file,
        release() {
          if (released) return;
          released = true;
          // Only our own file: never remove a lock another process took over meanwhile.
          if (readHolder(file)?.text === text) unlinkSync(file);
        },
      };
    } catch (error) {
      unlinkSync(draft);
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = readHolder(file);
    if (!found) continue;
    if (!stale(found.holder)) throw new DataDirInUseError(dataDir, found.holder ?? mine);
    const aside = `${file}.stale-${process.pid}`;
    try {
      renameSync(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readFileSync(aside, 'utf8');
    if (moved !== found.text) {
      // Another process replaced the stale file with its live lock between our read and
      // rename: put it back (link fails only if yet another lock appeared) and give up.
      try {
        linkSync(aside, file);
      } finally {
        unlinkSync(aside);
      }
      throw new DataDirInUseError(dataDir, parseHolder(moved) ?? mine);
    }
    unlinkSync(aside);
  }
  throw new Error(`could not take ${file}: it keeps changing`);
}
