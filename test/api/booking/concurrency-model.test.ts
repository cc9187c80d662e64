/**
 * The booking invariant under concurrency, held to a brute-force model: random batches of
 * booking creates (some with an `Idempotency-Key`, resent with the same or another body),
 * moves, resizes, status changes and deletes, product changes (`total_items` up or down,
 * maintenance) and product deletes (refused while bookings remain) are sent all at once
 * with reads of the products' availability, on PostgreSQL spread over two instances of the
 * service on one database; two requests may name the same record with the same `If-Match`.
 *
 * The answers of each batch must be those of the sequential model (./availability-model.ts
 * counts the units) run in *some* order of the batch — every 409 with the model's
 * `available`, `held` and `conflicts` at that point; a keyed create is two events, its
 * claim and its run, so a repeat may find the key still running (409), and so is a read
 * (the product, then its bookings: docs/availability.md) — so no request saw a state that
 * no serial order produces: no double booking, no spurious refusal, no lost update, no
 * request run twice. After each batch the stored bookings and products are the
 * model's, both instances' availability counts what the model counts, and every accepted
 * write (no refused one, no replay) left one audit entry and one outbox event naming it.
 *
 * SQLite runs one instance: a second connection in the same process would wait for the
 * write lock synchronously and stall the first; several processes on one SQLite file
 * are what the CLI beside the server does, not a deployment shape. The run itself is
 * ./concurrency-run.ts; ../ops/deployment.test.ts sends it through nginx to two processes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { secondInstance } from '../../support/second-instance.js';
import type { Instance } from '../../support/second-instance.js';
import { concurrencyProperty } from './concurrency-run.js';
import type { ModelRequest, ModelTarget } from './concurrency-run.js';

const runs = Number(process.env['CONCURRENCY_MODEL_RUNS'] ?? 30);
const seed = Number(process.env['CONCURRENCY_MODEL_SEED'] ?? 20261129);

describe.each(dialects)('capacity under concurrency against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let second: Instance | undefined;
  let target: ModelTarget;

  beforeAll(async () => {
    // Up to five writes queue on one product's lock; on a busy machine the default 5 s
    // statement timeout is the subject of other tests, not this one.
    const statementTimeoutMs = 60_000;
    const postgresUrl = dialect === 'postgres' ? await freshPostgresUrl({ migrated: true }) : undefined;
    h = await createHarness(dialect, { database: { statementTimeoutMs, ...(postgresUrl ? { postgresUrl } : {}) } });
    const token = await h.bearer(await h.tenant('Concurrency'), [...crud('products'), ...crud('bookings')]);
    second = postgresUrl ? await secondInstance(h, postgresUrl, { statementTimeoutMs }) : undefined;
    const instances = (second ? [h.request, second.request] : [h.request]).map((request) => (r: ModelRequest) => request({ ...r, headers: { ...r.headers }, token }));
    target = { send: (i, r) => (instances[i % instances.length] as (typeof instances)[number])(r), instances, database: h.database, met: new Set() };
  });
  afterAll(async () => {
    await second?.close();
    await h.close();
  });

  it('answers every batch of concurrent writes as some serial order of it does, and stores that order’s result', async () => {
    await fc.assert(concurrencyProperty(target), { numRuns: runs, seed, endOnFailure: true });
    // A change to the generators must not quietly stop judging one kind of answer. SQLite's
    // one connection answers a seed's batches the same way every run, so there every kind
    // is required; which request wins a race on PostgreSQL's two instances is up to timing,
    // so there only kinds that the default run meets many times over. Another seed with
    // few runs may miss a rare one, so this binds the default seed only.
    if (process.env['CONCURRENCY_MODEL_SEED'] === undefined) {
      const frequent = ['create 201', 'create capacity_exceeded', 'resize 200', 'status 200', 'total 200', 'read 200', 'lost race 412', 'lost race 404'];
      const rare = [
        'create product_unavailable',
        'delete 204',
        'create replayed',
        'create idempotency_key_reused',
        'resize capacity_exceeded',
        'reactivate capacity_exceeded',
        'status invalid_transition',
        'total capacity_exceeded',
        'drop 204',
        'drop cascade_conflict',
        'read 404',
      ];
      const kinds = dialect === 'sqlite' ? [...frequent, ...rare] : frequent;
      expect(kinds.filter((kind) => !target.met.has(kind))).toEqual([]);
    }
  });
});
