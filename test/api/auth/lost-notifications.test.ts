import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { freshPostgresUrl } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { secondInstance } from '../../support/second-instance.js';
import type { Instance } from '../../support/second-instance.js';

/*
 * Invalidations another instance announced while this one's LISTEN connection was down
 * reach no one (docs/operations.md "Several instances"): once it listens again, the
 * directories drop everything. PostgreSQL only: SQLite has no listener to lose. Instance A's
 * clock stands still, so its cache would hold the client for ever without that drop: only
 * the reconnect can make it notice.
 */
describe('a lost LISTEN connection on postgres', () => {
  const frozen = Date.now();
  const clock: Clock = { now: () => frozen };
  let h: Harness;
  let b: Instance;

  beforeAll(async () => {
    const url = await freshPostgresUrl({ migrated: true });
    h = await createHarness('postgres', { clock, database: { postgresUrl: url } });
    b = await secondInstance(h, url);
  });
  afterAll(async () => {
    await b.close();
    await h.close();
  });

  it('drops what the feed would have invalidated: a client disabled meanwhile on the other instance is refused within 5 s', async () => {
    const tenant = await h.tenant('Lost');
    const admin = await h.bearer(null, ['api-clients:read', 'api-clients:update', 'products:list']);
    const client = await h.client(tenant, ['products:list']);
    const token = await h.token(client);
    expect((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode).toBe(200);
    // Every listener's connection goes; instance A reconnects about a second later.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`.execute(h.database.db);
    const read = await b.request({ method: 'GET', url: `/v1/api-clients/${client.clientId}`, token: admin });
    const disabled = await b.request({ method: 'PATCH', url: `/v1/api-clients/${client.clientId}`, token: admin, body: { disabled: true }, headers: { 'if-match': String(read.headers.etag) } });
    expect(disabled.statusCode, disabled.body).toBe(200);
    await expect.poll(async () => (await h.request({ method: 'GET', url: '/v1/products', token })).statusCode, { timeout: 5_000, interval: 200 }).toBe(401);
  });
});
