import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/db/sqlite.js';

/** The database holds personal data and subject keys: readable by its owner only, like the data key. */
describe('SQLite file modes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-modes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('creates the data directory 0700 and the database, its WAL and shared memory 0600', async () => {
    const dataDir = join(dir, 'data');
    const file = join(dataDir, 'booking.sqlite');
    const database = openSqlite(file);
    try {
      await sql`create table t (x integer)`.execute(database.db);
      await sql`insert into t values (1)`.execute(database.db);
      expect(mode(dataDir)).toBe(0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path), path).toBe(0o600);
    } finally {
      await database.close();
    }
  });
});
