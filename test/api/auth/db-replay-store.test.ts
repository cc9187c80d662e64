import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { DatabaseReplayStore } from '../../../src/security/db-replay-store.js';
import { dialects, freshDatabase } from '../../support/databases.js';

describe.each(dialects)('replay store in the database on %s', (dialect) => {
  let database: Database;
  let store: DatabaseReplayStore;
  const now = 1_800_000_000;

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    store = new DatabaseReplayStore(database);
  });
  afterAll(() => database.close());

  it('lets a key be claimed once until it expires, then again', async () => {
    expect(await store.claim('client_assertion', 'c1:jti-1', now + 60, now)).toBe(true);
    expect(await store.claim('client_assertion', 'c1:jti-1', now + 60, now + 30)).toBe(false);
    expect(await store.claim('dpop', 'c1:jti-1', now + 60, now)).toBe(true);
    expect(await store.claim('client_assertion', 'c1:jti-1', now + 200, now + 60)).toBe(true);
    expect(await store.claim('client_assertion', 'c1:jti-1', now + 200, now + 61)).toBe(false);
  });

  it('gives exactly one of 50 concurrent claims of one key', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => store.claim('client_assertion', 'c1:race', now + 60, now)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('stores sender-chosen keys safely (NUL, very long)', async () => {
    expect(await store.claim('dpop', `a\u0000b${'x'.repeat(5000)}`, now + 60, now)).toBe(true);
    expect(await store.claim('dpop', `a\u0000b${'x'.repeat(5000)}`, now + 60, now)).toBe(false);
  });
});
