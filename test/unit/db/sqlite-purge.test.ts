import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { retentionSettingsFromConfig, runRetention } from '../../../src/gdpr/retention-job.js';

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

  it('is what every retention run ends with, so what an erasure could not purge goes within one interval; a busy log is a warning', async () => {
    const file = join(dir, 'retention.sqlite');
    const database = openSqlite(file);
    const lines: { level: number; msg: string }[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString('utf8')) as { level: number; msg: string });
          done();
        },
      }),
    );
    const settings = retentionSettingsFromConfig(loadConfig({ DATA_DIR: dir }));
    const warnings = () => lines.filter((line) => line.level === 40).map((line) => line.msg);
    try {
      await migrateToLatest(database);
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
      const reader = new BetterSqlite3(file, { readonly: true });
      try {
        reader.exec('begin');
        reader.prepare('select count(*) from audit_logs').get();
        await runRetention(database, settings, { now: () => Date.now() }, log);
        expect(warnings()).toEqual(['the write-ahead log was in use: removed values stay in it until the next retention run']);
        reader.exec('commit');
      } finally {
        reader.close();
      }
      await runRetention(database, settings, { now: () => Date.now() }, log);
      expect(statSync(`${file}-wal`).size).toBe(0);
      expect(warnings()).toHaveLength(1);
    } finally {
      await database.close();
    }
  });
});
