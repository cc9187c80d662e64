import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/**
 * Where the programs the tests start live on this machine. Each finder answers `undefined`
 * when the program is missing; the callers turn that into a loud failure, never a skip.
 */

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `command` on `PATH` (as `command -v` would find it). */
export function onPath(command: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir !== '' && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

const postgresPrograms = ['initdb', 'pg_ctl', 'postgres'] as const;

/**
 * The directory holding PostgreSQL's server programs (`initdb`, `pg_ctl`, `postgres`): the
 * one `initdb` on the PATH comes from, else the newest `/usr/lib/postgresql/<version>/bin`,
 * where Debian's packages put them without adding them to the PATH.
 */
export function postgresBinDir(path = process.env.PATH ?? '', debianRoot = '/usr/lib/postgresql'): string | undefined {
  const candidates: string[] = [];
  const initdb = onPath('initdb', path);
  if (initdb) candidates.push(dirname(realpathSync(initdb)));
  let versions: string[] = [];
  try {
    versions = readdirSync(debianRoot);
  } catch {
    // No Debian PostgreSQL packages.
  }
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  candidates.push(...versions.map((version) => join(debianRoot, version, 'bin')));
  return candidates.find((dir) => postgresPrograms.every((program) => executable(join(dir, program))));
}

/** Chromium for the browser tests: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** `chromiumPath()` when it exists and is executable. */
export function findChromium(): string | undefined {
  const path = chromiumPath();
  return executable(path) ? path : undefined;
}

/**
 * nginx for the deployment test: on the PATH, else Debian's `/usr/sbin/nginx` (sbin is not
 * on an ordinary user's PATH).
 */
export function findNginx(path = process.env.PATH ?? ''): string | undefined {
  return onPath('nginx', path) ?? (executable('/usr/sbin/nginx') ? '/usr/sbin/nginx' : undefined);
}

/**
 * PgBouncer for the pooler deployment test: on the PATH, else Debian's `/usr/sbin/pgbouncer`
 * (sbin is not on an ordinary user's PATH).
 */
export function findPgbouncer(path = process.env.PATH ?? ''): string | undefined {
  return onPath('pgbouncer', path) ?? (executable('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : undefined);
}
