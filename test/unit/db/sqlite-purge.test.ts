import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/db/sqlite.js';

/**
 * `purgeOverwritten` on SQLite (after an erasure, on every retention run): the write-ahead
 * log is truncated when nobody holds it, and a reader in another process (a backup) makes
 * it report `complete: false` at once instead of waiting out the busy timeout, which would
 * stall the server's event loop.
 */
describe('SQLite purgeOverwritten', () => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-purge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('truncates the log when it is free, and reports a reader elsewhere without waiting for it', async () => {
    const file = join(dir, 'purge.sqlite');
    // A minute's busy timeout: were the purge to wait for the reader, the test would time out.
    const database = openSqlite(file, { busyTimeoutMs: 60_000 });
    const wal = () => statSync(`${file}-wal`).size;
    try {
      await sql`create table notes (id integer primary key, body text)`.execute(database.db);
      await sql`insert into notes (body) values ('first')`.execute(database.db);

      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        reader.exec('begin');
        expect(reader.prepare('select count(*) as n from notes').get()).toEqual({ n: 1 });
        await sql`update notes set body = 'second'`.execute(database.db);
        expect(await database.purgeOverwritten?.()).toEqual({ complete: false });
        expect(wal()).toBeGreaterThan(0);
        reader.exec('commit');
      } finally {
        reader.close();
      }

      expect(await database.purgeOverwritten?.()).toEqual({ complete: true });
      expect(wal()).toBe(0);
      // The server's own busy timeout is back for its next statements.
      const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(database.db);
      expect(Object.values(rows[0] ?? {})).toEqual([60_000]);
      const { rows: kept } = await sql<{ body: string }>`select body from notes`.execute(database.db);
      expect(kept).toEqual([{ body: 'second' }]);
    } finally {
      await database.close();
    }
  });
});
