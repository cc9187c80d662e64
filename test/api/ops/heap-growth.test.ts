import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { logLines, startServer, until } from '../../support/server-process.js';

describe.each(dialects)('the real server process on %s', (dialect) => {
  it(dialect === 'postgres' ? 'bounds the old generation’s growth and says so' : 'leaves the old generation’s growth to V8', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'booking-heap-'));
    const server = startServer(await freePort(), { DATA_DIR: dir, ...(dialect === 'postgres' ? { DATABASE_URL: await freshPostgresUrl() } : {}) });
    try {
      await server.waitReady();
      // Log lines reach stdout in batches, up to 250 ms after they were logged.
      const databaseReady = () => logLines(server.stdout()).find((line) => line.msg === 'database ready');
      await until(() => databaseReady() !== undefined, 'the database ready line');
      const ready = databaseReady();
      expect(ready?.storage).toBe(dialect);
      expect(ready?.v8Flags).toEqual(dialect === 'postgres' ? ['--heap-growing-percent=200'] : undefined);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
