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
 * are what the CLI beside the server does, not a deployment shape.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { secondInstance } from '../../support/second-instance.js';
import type { Instance } from '../../support/second-instance.js';
import { peakHeld } from './availability-model.js';
import { holds, hourAt, hours, outcomeOf, serialOrder } from './concurrency-model.js';
import type { Op, Outcome, Product, Status, World } from './concurrency-model.js';

const runs = Number(process.env['CONCURRENCY_MODEL_RUNS'] ?? 30);
const seed = Number(process.env['CONCURRENCY_MODEL_SEED'] ?? 20261129);

const iso = (at: number) => new Date(at).toISOString();

/**
 * A command as generated: which booking or product it names is resolved when its batch is
 * sent. `product` names a product that is still there unless `ghost` (once in four) lets
 * it name a deleted one, so a deleted product does not waste half of a run's commands.
 */
type Command = { readonly instance: number } & (
  | {
      readonly kind: 'create';
      readonly product: number;
      readonly ghost: boolean;
      readonly start: number;
      readonly length: number;
      readonly quantity: number;
      readonly cancelled: boolean;
      /** The run's `Idempotency-Key` number to send, if any, and whether to resend the body first sent with it. */
      readonly key: number | null;
      readonly sameBody: boolean;
    }
  | { readonly kind: 'resize'; readonly target: number; readonly start: number; readonly length: number; readonly quantity: number }
  | { readonly kind: 'status'; readonly target: number; readonly status: Status }
  | { readonly kind: 'delete'; readonly target: number }
  | { readonly kind: 'product'; readonly product: number; readonly ghost: boolean; readonly total: number; readonly maintenance: boolean }
  | { readonly kind: 'drop'; readonly product: number; readonly ghost: boolean }
  | { readonly kind: 'read'; readonly product: number; readonly ghost: boolean }
);

const span = { start: fc.integer({ min: 0, max: hours - 1 }), length: fc.integer({ min: 1, max: 3 }), quantity: fc.integer({ min: 1, max: 3 }) };
const instance = fc.nat({ max: 1 });
const product = fc.nat({ max: 1 });
/** True about once in `n` draws. */
const oneIn = (n: number) => fc.nat({ max: n - 1 }).map((k) => k === 0);
const ghost = oneIn(4);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      instance,
      product,
      ghost,
      ...span,
      cancelled: oneIn(3),
      key: fc.option(fc.nat({ max: 1 }), { freq: 2 }),
      sameBody: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('resize' as const), instance, target: fc.nat(), ...span }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('status' as const), instance, target: fc.nat(), status: fc.constantFrom<Status>('active', 'active', 'active', 'cancelled', 'cancelled', 'completed') }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), instance, target: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('product' as const), instance, product, ghost, total: fc.integer({ min: 0, max: 3 }), maintenance: oneIn(4) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), instance, product, ghost }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), instance, product, ghost }) },
);
const batch = fc.array(command, { minLength: 2, maxLength: 5 });

describe.each(dialects)('capacity under concurrency against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let second: Instance | undefined;
  let token: string;
  let instances: Harness['request'][];
  /** Each kind of answer the run met: the default run must meet every one. */
  const met = new Set<string>();

  beforeAll(async () => {
    // Up to five writes queue on one product's lock; on a busy machine the default 5 s
    // statement timeout is the subject of other tests, not this one.
    const statementTimeoutMs = 60_000;
    const postgresUrl = dialect === 'postgres' ? await freshPostgresUrl({ migrated: true }) : undefined;
    h = await createHarness(dialect, { database: { statementTimeoutMs, ...(postgresUrl ? { postgresUrl } : {}) } });
    token = await h.bearer(await h.tenant('Concurrency'), [...crud('products'), ...crud('bookings')]);
    second = postgresUrl ? await secondInstance(h, postgresUrl, { statementTimeoutMs }) : undefined;
    instances = second ? [h.request, second.request] : [h.request];
  });
  afterAll(async () => {
    await second?.close();
    await h.close();
  });

  /** The request that carries `op`. */
  function send(world: World, op: Op, via: Harness['request']): Promise<LightMyRequestResponse> {
    if (op.kind === 'create') {
      const product = world.products[op.product] as Product;
      const body = { product_id: product.id, start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity, status: op.status };
      return via({ method: 'POST', url: '/v1/bookings/', token, body, ...(op.key === undefined ? {} : { headers: { 'idempotency-key': op.key } }) });
    }
    if (op.kind === 'product') {
      const product = world.products[op.product] as Product;
      const body = { total_items: op.total, status: op.maintenance ? 'maintenance' : 'active' };
      return via({ method: 'PATCH', url: `/v1/products/${product.id}`, token, body, headers: { 'if-match': op.etag } });
    }
    if (op.kind === 'read') {
      const product = world.products[op.product] as Product;
      return via({ method: 'GET', url: `/v1/products/${product.id}/availability?from=${iso(hourAt(0))}&to=${iso(hourAt(hours))}&granularity=hour`, token });
    }
    const headers = { 'if-match': op.etag };
    if (op.kind === 'drop') return via({ method: 'DELETE', url: `/v1/products/${(world.products[op.product] as Product).id}`, token, headers });
    if (op.kind === 'delete') return via({ method: 'DELETE', url: `/v1/bookings/${op.id}`, token, headers });
    const body = op.kind === 'status' ? { status: op.status } : { start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity };
    return via({ method: 'PATCH', url: `/v1/bookings/${op.id}`, token, body, headers });
  }

  /** A run's `Idempotency-Key`s (unique to the run, as keys are scoped by client and route) and the create each was first sent with. */
  interface RunKeys {
    readonly tag: string;
    readonly first: Map<string, Op>;
  }

  /**
   * The batch's commands as requests, each with the ETag the model holds: two that name the
   * same record race, and all but the first to commit must find their ETag stale. A keyed
   * create resends, when asked, the body its key was first sent with.
   */
  function resolve(world: World, commands: readonly Command[], keys: RunKeys): { op: Op; instance: number }[] {
    const ops: { op: Op; instance: number }[] = [];
    const live = world.products.flatMap((p, index) => (p.deleted ? [] : [index]));
    const productOf = (c: { product: number; ghost: boolean }) => (c.ghost || live.length === 0 || live.includes(c.product) ? c.product : (live[0] as number));
    for (const c of commands) {
      if (c.kind === 'create') {
        const key = c.key === null ? undefined : `${keys.tag}-${c.key}`;
        const own: Op = {
          kind: 'create',
          product: productOf(c),
          start: hourAt(c.start),
          end: hourAt(Math.min(hours, c.start + c.length)),
          quantity: c.quantity,
          status: c.cancelled ? 'cancelled' : 'active',
        };
        const first = key === undefined ? undefined : keys.first.get(key);
        if (key !== undefined && !first) keys.first.set(key, own);
        ops.push({ instance: c.instance, op: { ...(c.sameBody && first ? first : own), ...(key === undefined ? {} : { key }) } });
        continue;
      }
      if (c.kind === 'read') {
        ops.push({ instance: c.instance, op: { kind: 'read', product: productOf(c) } });
        continue;
      }
      if (c.kind === 'product' || c.kind === 'drop') {
        const named = productOf(c);
        const { etag } = world.products[named] as Product;
        ops.push({
          instance: c.instance,
          op: c.kind === 'drop' ? { kind: 'drop', product: named, etag } : { kind: 'product', product: named, etag, total: c.total, maintenance: c.maintenance },
        });
        continue;
      }
      // Setting `active` is mostly a reactivation: it names a cancelled booking where there is one.
      const cancelled = world.bookings.filter((b) => b.status === 'cancelled');
      const among = c.kind === 'status' && c.status === 'active' && cancelled.length > 0 ? cancelled : world.bookings;
      const booking = among[c.target % Math.max(1, among.length)];
      if (!booking) continue;
      const { id, etag } = booking;
      const op: Op =
        c.kind === 'delete'
          ? { kind: 'delete', id, etag }
          : c.kind === 'status'
            ? { kind: 'status', id, etag, status: c.status }
            : { kind: 'resize', id, etag, start: hourAt(c.start), end: hourAt(Math.min(hours, c.start + c.length)), quantity: c.quantity };
      ops.push({ instance: c.instance, op });
    }
    return ops;
  }

  /** What the run met, for the closing check that the default run judges every kind of answer. */
  function note(op: Op, world: World, seen: Outcome): void {
    const booking = 'id' in op ? world.bookings.find((b) => b.id === op.id) : undefined;
    const what = op.kind === 'status' && booking?.status === 'cancelled' && op.status === 'active' ? 'reactivate' : op.kind === 'product' ? 'total' : op.kind;
    met.add(`${what} ${seen.replayed === undefined ? (seen.code ?? seen.status) : 'replayed'}`);
    // A request that another of its batch beat to the record: its ETag went stale, or the record.
    if (seen.status === 412 || seen.status === 404) met.add(`lost race ${seen.status}`);
  }

  /** The stored bookings and products, and each instance's hourly availability, are the model's. */
  async function expectStored(world: World): Promise<void> {
    const productIds = world.products.map((p) => p.id);
    const stored = await h.database.db
      .selectFrom('bookings')
      .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity', 'status'])
      .where('product_id', 'in', productIds)
      .where('deleted_at', 'is', null)
      .execute();
    const asStored = stored.map((b) => ({
      id: String(b._id),
      product: productIds.indexOf(String(b.product_id)),
      start: Date.parse(String(h.database.dialect.fromDb('timestamp', b.start_time))),
      end: Date.parse(String(h.database.dialect.fromDb('timestamp', b.end_time))),
      quantity: Number(b.quantity),
      status: String(b.status),
    }));
    const modelled = world.bookings.map(({ id, product, start, end, quantity, status }) => ({ id, product, start, end, quantity, status }));
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect(asStored.sort(byId)).toEqual(modelled.sort(byId));
    for (const [index, product] of world.products.entries()) {
      const url = `/v1/products/${product.id}/availability?from=${iso(hourAt(0))}&to=${iso(hourAt(hours))}&granularity=hour`;
      if (product.deleted) {
        for (const via of instances) expect((await via({ method: 'GET', url, token })).statusCode).toBe(404);
        continue;
      }
      const slots = Array.from({ length: hours }, (_, hour) => {
        const booked = peakHeld(
          world.bookings.filter((b) => b.product === index && holds(b)),
          hourAt(hour),
          hourAt(hour + 1),
        );
        expect(booked, `the invariant at hour ${hour}`).toBeLessThanOrEqual(product.total);
        return { start: iso(hourAt(hour)), end: iso(hourAt(hour + 1)), booked, available: product.maintenance ? 0 : Math.max(0, product.total - booked) };
      });
      for (const via of instances) {
        const answer = await via({ method: 'GET', url, token });
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json()).toMatchObject({ total_items: product.total, slots });
      }
    }
  }

  /** What an accepted write adds to the audit trail (its action) and to the outbox (its event), per record. */
  function trailOf(op: Exclude<Op, { kind: 'read' }>, answer: LightMyRequestResponse, world: World): { record: string; action: string; event: string } {
    if (op.kind === 'create') return { record: String(answer.json<{ _id: string }>()._id), action: 'create', event: 'bookings.created' };
    if (op.kind === 'product') return { record: (world.products[op.product] as Product).id, action: 'update', event: 'products.updated' };
    if (op.kind === 'drop') return { record: (world.products[op.product] as Product).id, action: 'delete', event: 'products.deleted' };
    return op.kind === 'delete' ? { record: op.id, action: 'delete', event: 'bookings.deleted' } : { record: op.id, action: 'update', event: 'bookings.updated' };
  }

  /** Every accepted write, and no refused one, left one audit entry and one event, in the same transaction. */
  async function expectTrail(expected: readonly { record: string; action: string; event: string }[]): Promise<void> {
    const records = [...new Set(expected.map((e) => e.record))];
    const audit = await h.database.db.selectFrom('audit_logs').select(['_id', 'record_id', 'action']).where('record_id', 'in', records).execute();
    const events = await h.database.db.selectFrom('outbox_events').select(['audit_id', 'record_id', 'type']).where('record_id', 'in', records).execute();
    const actionOf = new Map(audit.map((a) => [String(a._id), String(a.action)]));
    const pairs = (list: readonly string[]) => [...list].sort();
    expect(pairs(audit.map((a) => `${String(a.record_id)} ${String(a.action)}`))).toEqual(pairs(expected.map((e) => `${e.record} ${e.action}`)));
    // Each event names the audit entry of its write.
    expect(pairs(events.map((e) => `${String(e.record_id)} ${String(e.type)} ${actionOf.get(String(e.audit_id)) ?? 'no audit entry'}`))).toEqual(
      pairs(expected.map((e) => `${e.record} ${e.event} ${e.action}`)),
    );
  }

  it('answers every batch of concurrent writes as some serial order of it does, and stores that order’s result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })), fc.array(batch, { minLength: 3, maxLength: 8 }), async (totals, batches) => {
        const products: Product[] = [];
        for (const total of totals) {
          const created = await h.request({ method: 'POST', url: '/v1/products/', token, body: { name: 'Raced', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: total } });
          expect(created.statusCode, created.body).toBe(201);
          products.push({ id: created.json<{ _id: string }>()._id, etag: String(created.headers.etag), total, maintenance: false, deleted: false });
        }
        const trail = products.map((p) => ({ record: p.id, action: 'create', event: 'products.created' }));
        let world: World = { products, bookings: [], keys: new Map() };
        const keys: RunKeys = { tag: `${products[0]?.id ?? ''}`, first: new Map() };
        for (const [number, commands] of batches.entries()) {
          const ops = resolve(world, commands, keys);
          const answers = await Promise.all(ops.map(({ op, instance: i }) => send(world, op, instances[i % instances.length] as Harness['request'])));
          const pending = ops.map(({ op }, i) => ({ op, answer: answers[i] as LightMyRequestResponse, seen: outcomeOf(answers[i] as LightMyRequestResponse) }));
          const found = serialOrder(world, pending);
          const told = pending.map(({ op, seen, answer }) => ({ op, seen, body: seen.status >= 400 ? answer.json<unknown>() : undefined }));
          expect(found, `batch ${number}: no serial order gives these answers\n${JSON.stringify({ world, answers: told }, null, 1)}`).toBeDefined();
          for (const { op, seen } of pending) note(op, world, seen);
          for (const { op, answer, seen } of pending) if (seen.status < 300 && seen.replayed === undefined && op.kind !== 'read') trail.push(trailOf(op, answer, world));
          world = found as World;
          await expectStored(world);
          await expectTrail(trail);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
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
      expect(kinds.filter((kind) => !met.has(kind))).toEqual([]);
    }
  });
});
