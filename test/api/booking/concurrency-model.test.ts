/**
 * The booking invariant under concurrency, held to a brute-force model: random batches of
 * booking creates (some with an `Idempotency-Key`, resent with the same or another body),
 * moves, resizes, status changes and deletes, product changes (`total_items` up or down,
 * maintenance) and product deletes (refused while bookings remain), orders of the priced
 * products (holding their units for 60 s, 120 s or the default 15 minutes), their confirms
 * and cancels, signed payment events of the right amount or a cent short, and changes of an
 * order's booking through /v1/bookings (409 `managed_by_order`) are sent all at once with
 * reads of the products' availability and, in some batches, the expiry sweep beside them,
 * on PostgreSQL spread over two instances of the service on one database; two requests may
 * name the same record with the same `If-Match`. Both instances read one movable clock,
 * which moves on 61 s before some batches, so holds run out (and are swept, paid late, or
 * their units taken) within a run.
 *
 * The answers of each batch must be those of the sequential model (./availability-model.ts
 * counts the units, ./order-model.ts decides orders) run in *some* order of the batch —
 * every 409 with the model's `available`, `held` and `conflicts` at that point; a keyed
 * create is two events, its claim and its run, so a repeat may find the key still running
 * (409), and so is a read (the product, then its bookings: docs/availability.md); a sweep is
 * one event per order it finds due — so no request saw a state that no serial order
 * produces: no double booking, no unit held twice, no spurious refusal, no lost update, no
 * request run twice, no payment both applied and swept. After each batch the stored
 * bookings and orders are the model's (status, `expires_at`), both instances' availability
 * counts what the model counts, every accepted write (no refused one, no replay) left one
 * audit entry and one outbox event naming it, no instant of a product has more units held
 * than it has, and no unpaid order past its hold has a booking that holds units.
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
import type { Harness, TestClient } from '../../support/harness.js';
import { instanceWithClock, movableClock } from '../selling/shared-clock.js';
import type { ClockedInstance } from '../selling/shared-clock.js';
import { concurrencyProperty } from './concurrency-run.js';
import type { ModelRequest, ModelTarget } from './concurrency-run.js';

const runs = Number(process.env['CONCURRENCY_MODEL_RUNS'] ?? 30);
/** A safety net, not a speed check: a run takes well under a second, but a busy machine may take several times the usual. */
const timeoutMs = Math.max(60_000, runs * 1_000);
const seed = Number(process.env['CONCURRENCY_MODEL_SEED'] ?? 20261129);

describe.each(dialects)('capacity under concurrency against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let second: ClockedInstance | undefined;
  let target: ModelTarget;

  beforeAll(async () => {
    // Up to five writes queue on one product's lock; on a busy machine the default 5 s
    // statement timeout is the subject of other tests, not this one.
    const statementTimeoutMs = 60_000;
    const postgresUrl = dialect === 'postgres' ? await freshPostgresUrl({ migrated: true }) : undefined;
    // Both instances read one clock, which the run moves between batches so that holds run out.
    const clock = movableClock();
    h = await createHarness(dialect, { clock, database: { statementTimeoutMs, ...(postgresUrl ? { postgresUrl } : {}) } });
    const client: TestClient = await h.client(await h.tenant('Concurrency'), [...crud('products'), ...crud('bookings'), ...crud('orders'), 'orders:confirm', 'webhooks:create']);
    // A token as of the service's time, made again once the clock has moved on a while.
    let token = { value: await h.token(client, undefined, clock.now()), at: clock.now() };
    const fresh = async () => {
      if (clock.now() - token.at > 5 * 60_000) token = { value: await h.token(client, undefined, clock.now()), at: clock.now() };
      return token.value;
    };
    second = postgresUrl ? await instanceWithClock(h, postgresUrl, clock, { statementTimeoutMs }) : undefined;
    const instances = (second ? [h.request, second.request] : [h.request]).map((request) => async (r: ModelRequest) => request({ ...r, headers: { ...r.headers }, token: await fresh() }));
    target = { send: (i, r) => (instances[i % instances.length] as (typeof instances)[number])(r), instances, database: h.database, clock, advance: clock.advance, met: new Set() };
  });
  afterAll(async () => {
    await second?.close();
    await h.close();
  });

  it(
    'answers every batch of concurrent writes as some serial order of it does, and stores that order’s result',
    async () => {
      await fc.assert(concurrencyProperty(target), { numRuns: runs, seed, endOnFailure: true });
      // A change to the generators must not quietly stop judging one kind of answer. SQLite's
      // one connection answers a seed's batches (nearly) the same way every run, so there every
      // kind the default run meets is required (the sweep runs beside the requests, so a kind
      // it met but once in some trials is not); which request wins a race on PostgreSQL's two
      // instances is up to timing, so there only kinds that the default run meets many times
      // over, or that its batches bring whoever wins. Another seed with few runs may miss a
      // rare one, so this binds the default seed only.
      if (process.env['CONCURRENCY_MODEL_SEED'] === undefined) {
        const frequent = [
          ...['create 201', 'create capacity_exceeded', 'resize 200', 'status 200', 'total 200', 'read 200', 'lost race 412', 'lost race 404'],
          ...['order 201', 'order capacity_exceeded', 'confirm confirmed', 'confirm again', 'confirm invalid_transition', 'cancel 200', 'managed managed_by_order'],
          ...['pay wrong amount', 'pay ignored', 'pay failed', 'sweep expired', 'settled after the hold ran out: confirmed', 'racing the sweep'],
        ];
        const rare = [
          ...['create product_unavailable', 'delete 204', 'create replayed', 'create idempotency_key_reused', 'resize capacity_exceeded', 'reactivate capacity_exceeded'],
          ...['status invalid_transition', 'total capacity_exceeded', 'drop 204', 'drop cascade_conflict', 'read 404'],
          ...['order product_unavailable', 'order beside a run-out hold', 'pay applied', 'pay late', 'confirm late', 'pay racing the sweep', 'settled after the hold ran out: refund_required'],
        ];
        const kinds = dialect === 'sqlite' ? [...frequent, ...rare] : frequent;
        expect(kinds.filter((kind) => !target.met.has(kind))).toEqual([]);
      }
    },
    timeoutMs,
  );
});
