import { join } from 'node:path';
import { ColumnNode, ColumnUpdateNode, TableNode, UpdateQueryNode, sql } from 'kysely';
import type { KyselyPlugin, OperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { Clock } from '../../../src/core/clock.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/** The columns an UPDATE of `idempotency_keys` sets, or undefined for any other statement. */
function keyUpdateColumns(node: OperationNode): string[] | undefined {
  if (!UpdateQueryNode.is(node) || !node.table || !TableNode.is(node.table) || node.table.table.identifier.name !== 'idempotency_keys') return undefined;
  return (node.updates ?? []).map((update) => (ColumnUpdateNode.is(update) && ColumnNode.is(update.column) ? update.column.column.name : ''));
}

/**
 * The process dies right after the action's commit and before the key's answer is stored
 * (docs/api.md "Idempotency"): every statement the request would run after its transaction
 * (storing the answer, or keeping the key reserved) fails, as if nothing ran them. The key's
 * mark inside the action's transaction still commits.
 */
const diesAfterCommit: KyselyPlugin = {
  transformQuery: ({ node }) => {
    const columns = keyUpdateColumns(node);
    if (columns && (columns.includes('status') || (columns.length === 1 && columns[0] === 'expires_at'))) throw new Error('the process died before storing the answer');
    return node;
  },
  transformResult: async ({ result }) => result,
};

describe.each(dialects)('an Idempotency-Key across a crash between commit and answer on %s', (dialect) => {
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset };
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect, { clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    token = await h.bearer(await h.tenant('Crash'), [...crud('products'), ...crud('bookings'), ...crud('orders')]);
  });
  afterAll(() => h.close());

  const count = async (table: string, column: string, value: string) =>
    (
      await h.database.db
        .selectFrom(table)
        .select(sql<number>`count(*)`.as('n'))
        .where(column, '=', value)
        .executeTakeFirstOrThrow()
    ).n;

  it('runs the action once: the retry after the claim would have lapsed replays the committed record', async () => {
    const product = String(
      (await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Once', address: 'A 1', city: 'Riga', zip_code: '1050', total_items: 5, price: 10 } })).json()._id,
    );
    const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    const dying = await buildApp(h.config, { database: { ...h.database, db: h.database.db.withPlugin(diesAfterCommit) }, keys, logger: false, clock });
    try {
      for (const [url, body] of [
        ['/v1/bookings', { product_id: product, start_time: '2030-02-01T10:00:00Z', end_time: '2030-02-02T10:00:00Z', reference: `crash-${dialect}` }],
        ['/v1/orders', { product_id: product, start_time: '2030-03-01T10:00:00Z', end_time: '2030-03-02T10:00:00Z' }],
      ] as const) {
        const key = `crash-${url}`;
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
        const died = await dying.server.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
        expect(died.statusCode).toBe(500);
        // The first request's lease (120 s) is long over: a claim left `running` would be taken over and run again.
        offset += 121_000;
        const retry = await h.request({ method: 'POST', url, token, body, headers: { 'idempotency-key': key } });
        expect(retry.statusCode, retry.body).toBe(201);
        expect(retry.headers['idempotency-replayed']).toBe('true');
        expect(retry.headers.location).toBe(`http://api.test${url}/${String(retry.json()._id)}`);
        const table = url === '/v1/bookings' ? 'bookings' : 'orders';
        expect(await count(table, 'product_id', product)).toBe(1);
        // And again, once more: the same record.
        const again = await h.request({ method: 'POST', url, token, body, headers: { 'idempotency-key': key } });
        expect(again.json()._id).toBe(retry.json()._id);
      }
    } finally {
      await dying.server.close();
    }
  });
});
