import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/db/sqlite.js';

/**
 * Several processes may share one SQLite file (the CLI beside the server). A transaction
 * takes the write lock when it begins, so a write after a read waits out another process's
 * lock (busy timeout) instead of failing at once with "database is locked", as a deferred
 * BEGIN does in WAL mode. Another connection stands in for the other process here.
 */
describe('SQLite transactions across processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-write-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('hold the write lock from their first statement, a read included', async () => {
    const file = join(dir, 'shared.sqlite');
    const database = openSqlite(file);
    const other = new BetterSqlite3(file, { timeout: 0 });
    try {
      await database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        expect(() => other.exec('begin immediate')).toThrow(/locked|busy/);
      });
      other.exec('begin immediate');
      other.exec('commit');
    } finally {
      other.close();
      await database.close();
    }
  });
});
