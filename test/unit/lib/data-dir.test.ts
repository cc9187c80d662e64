import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock } from '../../../src/db/data-dir-lock.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { ensureDataDir, makeDirectory } from '../../../src/lib/data-dir.js';

const dir = mkdtempSync(join(tmpdir(), 'booking-data-dir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('DATA_DIR is made without looping, or refused naming the setting', () => {
  it('creates every missing level owner-only (0700)', () => {
    const target = join(dir, 'made', 'a', 'b');
    ensureDataDir(target);
    expect(mode(join(dir, 'made'))).toBe(0o700);
    expect(mode(join(dir, 'made', 'a'))).toBe(0o700);
    expect(mode(target)).toBe(0o700);
    // Again, on the existing directory: nothing to do, no error.
    ensureDataDir(target);
    makeDirectory(target, 0o700);
  });

  it.skipIf(process.platform !== 'linux')('a directory under /proc (where recursive mkdir loops forever) is refused at once, naming DATA_DIR', () => {
    expect(() => ensureDataDir('/proc/nope')).toThrow(/^DATA_DIR: cannot create "\/proc\/nope": .*\(ENOENT\)$/);
    expect(() => ensureDataDir('/proc/nope/deeper')).toThrow(/^DATA_DIR: cannot create "\/proc\/nope\/deeper": /);
  });

  it('a path through a regular file is refused, naming DATA_DIR', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(() => ensureDataDir(join(file, 'data'))).toThrow('DATA_DIR: cannot create');
    expect(() => ensureDataDir(join(file, 'data'))).toThrow('a parent is not a directory (ENOTDIR)');
    expect(() => ensureDataDir(file)).toThrow('DATA_DIR: cannot create');
  });

  // Root may write anywhere: the check can only be seen failing for another user.
  it.skipIf(process.getuid?.() === 0)('an existing directory this process cannot write is refused, naming DATA_DIR', () => {
    const locked = join(dir, 'read-only');
    makeDirectory(locked, 0o500);
    try {
      expect(() => ensureDataDir(locked)).toThrow(/^DATA_DIR: ".*read-only" is not writable: permission denied/);
    } finally {
      chmodSync(locked, 0o700);
    }
  });

  it.skipIf(process.platform !== 'linux')('the server lock and the SQLite database refuse /proc/nope instead of hanging', () => {
    expect(() => acquireDataDirLock('/proc/nope', 'server')).toThrow(/^DATA_DIR: cannot create "\/proc\/nope"/);
    const settings = { databaseUrl: undefined, databaseDirectUrl: undefined, dataDir: '/proc/nope', dbPoolSize: 1, dbStatementTimeoutMs: 1000 };
    expect(() => openDatabase(settings)).toThrow(/^DATA_DIR: cannot create "\/proc\/nope"/);
  });
});
