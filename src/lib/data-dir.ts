import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const reasons: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a parent is not a directory',
  ENOSPC: 'no space left on device',
};

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

function reason(error: unknown): string {
  const code = codeOf(error);
  return reasons[code] ? `${reasons[code]} (${code})` : code || (error as Error).message;
}

/**
 * `mkdir -p` with `mode` on every directory it creates. Not Node's `{ recursive: true }`: on a
 * path the kernel refuses with ENOENT although the parent exists (any name under /proc), that
 * one retries the parent forever. Here each missing level is created once, parent first, and
 * the first refusal is thrown as is.
 */
export function makeDirectory(path: string, mode: number): void {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      if (statSync(current).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR' });
    } catch (error) {
      if (codeOf(error) !== 'ENOENT' || dirname(current) === current) throw error;
    }
    missing.push(current);
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory, { mode });
    } catch (error) {
      // Made by another process meanwhile: fine if it is a directory.
      if (codeOf(error) !== 'EEXIST' || !statSync(directory).isDirectory()) throw error;
    }
  }
}

/**
 * Makes `DATA_DIR` (owner only, 0700, when created here) and checks that this process can
 * create files in it. Refusals name the setting, as the settings' own parsers do, so the
 * boot stops with one line an operator can act on instead of a bare errno later.
 */
export function ensureDataDir(dataDir: string): void {
  try {
    makeDirectory(dataDir, 0o700);
  } catch (error) {
    throw new Error(`DATA_DIR: cannot create ${JSON.stringify(dataDir)}: ${reason(error)}`);
  }
  try {
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new Error(`DATA_DIR: ${JSON.stringify(dataDir)} is not writable: ${reason(error)}`);
  }
}
