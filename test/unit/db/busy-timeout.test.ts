import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openCliDatabase } from '../../../cli/cli-database.js';
import { loadConfig } from '../../../src/config/config.js';
import type { Database } from '../../../src/db/dialect.js';
import { openDatabase } from '../../../src/db/open-database.js';

/**
 * How long a statement waits for another process's SQLite write lock: the server's requests
 * 5 s (then a 503), the operator's CLI 30 s (a command run while the server is busy must not
 * fail). The wait itself is SQLite's busy handler; what is ours is the setting each opens with.
 */
describe('SQLite busy timeout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'booking-busy-'));
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'http://127.0.0.1:1' });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function busyTimeout(database: Database): Promise<number> {
    try {
      const { rows } = await sql<Record<string, number>>`pragma busy_timeout`.execute(database.db);
      return Number(Object.values(rows[0] ?? {})[0]);
    } finally {
      await database.close();
    }
  }

  it('is 5 s for the server and 30 s for the CLI, from the moment the file is opened', async () => {
    expect(await busyTimeout(openDatabase(config))).toBe(5_000);
    expect(await busyTimeout(openCliDatabase(config))).toBe(30_000);
  });
});
