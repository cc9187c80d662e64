import { afterAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { asSystem } from '../../../src/core/principal.js';
import type { RequestContext } from '../../../src/core/request-context.js';
import { rowToRecord } from '../../../src/data/record-codec.js';
import type { Row } from '../../../src/data/record-codec.js';
import { runUnitOfWork } from '../../../src/data/unit-of-work.js';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { getResource } from '../../../src/registry/index.js';
import { contentHashEtag } from '../../support/content-hash-etag.js';

const products = getResource('products');
const clock: Clock = { now: () => Date.parse('2026-03-01T12:00:00.000Z') };
const context: RequestContext = { principal: asSystem(), clientIp: null, requestId: null };
const values = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3, status: 'active', time_zone: 'UTC', is_published: false };

describe('ETags carry nothing of the content', () => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });
  const open = async () => {
    const database = openSqlite(':memory:');
    opened.push(database);
    await migrateToLatest(database);
    return database;
  };
  const stored = async (database: Database, id: string) => (await database.db.selectFrom('products').selectAll().where('_id', '=', id).executeTakeFirstOrThrow()) as Row;

  it('two writes of the very same record (id, time and values) get different ETags', async () => {
    const etags: string[] = [];
    for (const database of [await open(), await open()]) {
      const { etag } = await runUnitOfWork(database, clock, context, (unit) => unit.insert(products, { id: 'p-same', owner: null, values }));
      etags.push(etag);
    }
    for (const etag of etags) expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(etags[0]).not.toBe(etags[1]);
  });

  it('no ETag of a create, an update or a no-change update is the content hash of the stored record', async () => {
    const database = await open();
    const created = await runUnitOfWork(database, clock, context, (unit) => unit.insert(products, { id: 'p-1', owner: null, values }));
    expect(created.etag).not.toBe(contentHashEtag(null, rowToRecord(products, database.dialect, await stored(database, 'p-1'))));

    let previous = created.etag;
    const seen = new Set([previous]);
    // The same change twice: the second writes content identical to the first's.
    for (const changes of [{ name: 'Attic' }, { name: 'Attic' }, {}]) {
      const row = await stored(database, 'p-1');
      const written = await runUnitOfWork(database, clock, context, (unit) => unit.update(products, row, previous, changes));
      const after = await stored(database, 'p-1');
      expect(after.etag).toBe(written.etag);
      expect(written.etag).not.toBe(contentHashEtag(previous, rowToRecord(products, database.dialect, after)));
      expect(seen.has(written.etag)).toBe(false);
      seen.add(written.etag);
      previous = written.etag;
    }
  });
});
