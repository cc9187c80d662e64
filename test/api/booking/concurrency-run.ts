/**
 * One run of the booking concurrency model against a running service, wherever it runs:
 * in this process (./concurrency-model.test.ts) or as processes behind nginx
 * (../ops/deployment.test.ts). A run creates two products, then sends random batches of
 * booking and product writes and availability reads all at once; each batch's answers must
 * be those of ./concurrency-model.ts in some serial order, and after each batch the stored
 * rows, every instance's availability, the audit trail and the outbox must be that order's.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { peakHeld } from './availability-model.js';
import { holds, hourAt, hours, outcomeOf, serialOrder } from './concurrency-model.js';
import type { Op, Outcome, Product, Reply, Status, World } from './concurrency-model.js';

/** A request as the run sends it; the target adds the caller's token. */
export interface ModelRequest {
  readonly method: string;
  readonly url: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Where a run sends its requests and reads what they stored. */
export interface ModelTarget {
  /** Sends a request of a batch; `instance` (0 or 1) is a hint a balancer may ignore. */
  send(instance: number, request: ModelRequest): Promise<Reply>;
  /** One sender per instance, each reaching that instance only: every one must show the model's availability. */
  readonly instances: readonly ((request: ModelRequest) => Promise<Reply>)[];
  /** The service's database, to compare the stored rows, the audit trail and the outbox. */
  readonly database: Database;
  /** Each kind of answer the run met (`create 201`, `lost race 412`, …), for the caller's check that the run judged them. */
  readonly met: Set<string>;
}

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

const availabilityUrl = (product: Product) => `/v1/products/${product.id}/availability?from=${iso(hourAt(0))}&to=${iso(hourAt(hours))}&granularity=hour`;

/** The request that carries `op`. */
function requestFor(world: World, op: Op): ModelRequest {
  if (op.kind === 'create') {
    const product = world.products[op.product] as Product;
    const body = { product_id: product.id, start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity, status: op.status };
    return { method: 'POST', url: '/v1/bookings/', body, ...(op.key === undefined ? {} : { headers: { 'idempotency-key': op.key } }) };
  }
  if (op.kind === 'product') {
    const product = world.products[op.product] as Product;
    const body = { total_items: op.total, status: op.maintenance ? 'maintenance' : 'active' };
    return { method: 'PATCH', url: `/v1/products/${product.id}`, body, headers: { 'if-match': op.etag } };
  }
  if (op.kind === 'read') return { method: 'GET', url: availabilityUrl(world.products[op.product] as Product) };
  const headers = { 'if-match': op.etag };
  if (op.kind === 'drop') return { method: 'DELETE', url: `/v1/products/${(world.products[op.product] as Product).id}`, headers };
  if (op.kind === 'delete') return { method: 'DELETE', url: `/v1/bookings/${op.id}`, headers };
  const body = op.kind === 'status' ? { status: op.status } : { start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity };
  return { method: 'PATCH', url: `/v1/bookings/${op.id}`, body, headers };
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

/** The kinds of answer `seen` to `op` counts as, for the check that a run judged every kind. */
function kindsOf(op: Op, world: World, seen: Outcome): string[] {
  const booking = 'id' in op ? world.bookings.find((b) => b.id === op.id) : undefined;
  const what = op.kind === 'status' && booking?.status === 'cancelled' && op.status === 'active' ? 'reactivate' : op.kind === 'product' ? 'total' : op.kind;
  const kinds = [`${what} ${seen.replayed === undefined ? (seen.code ?? seen.status) : 'replayed'}`];
  // A request that another of its batch beat to the record: its ETag went stale, or the record.
  if (seen.status === 412 || seen.status === 404) kinds.push(`lost race ${seen.status}`);
  return kinds;
}

/** The stored bookings and products, and each instance's hourly availability, are the model's. */
async function expectStored(target: ModelTarget, world: World): Promise<void> {
  const { db, dialect } = target.database;
  const productIds = world.products.map((p) => p.id);
  const stored = await db
    .selectFrom('bookings')
    .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity', 'status'])
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
  const asStored = stored.map((b) => ({
    id: String(b._id),
    product: productIds.indexOf(String(b.product_id)),
    start: Date.parse(String(dialect.fromDb('timestamp', b.start_time))),
    end: Date.parse(String(dialect.fromDb('timestamp', b.end_time))),
    quantity: Number(b.quantity),
    status: String(b.status),
  }));
  const modelled = world.bookings.map(({ id, product, start, end, quantity, status }) => ({ id, product, start, end, quantity, status }));
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
  expect(asStored.sort(byId)).toEqual(modelled.sort(byId));
  for (const [index, product] of world.products.entries()) {
    const read = { method: 'GET', url: availabilityUrl(product) };
    if (product.deleted) {
      for (const via of target.instances) expect((await via(read)).statusCode).toBe(404);
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
    for (const via of target.instances) {
      const answer = await via(read);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toMatchObject({ total_items: product.total, slots });
    }
  }
}

/** What an accepted write adds to the audit trail (its action) and to the outbox (its event), per record. */
function trailOf(op: Exclude<Op, { kind: 'read' }>, answer: Reply, world: World): { record: string; action: string; event: string } {
  if (op.kind === 'create') return { record: String(answer.json<{ _id: string }>()._id), action: 'create', event: 'bookings.created' };
  if (op.kind === 'product') return { record: (world.products[op.product] as Product).id, action: 'update', event: 'products.updated' };
  if (op.kind === 'drop') return { record: (world.products[op.product] as Product).id, action: 'delete', event: 'products.deleted' };
  return op.kind === 'delete' ? { record: op.id, action: 'delete', event: 'bookings.deleted' } : { record: op.id, action: 'update', event: 'bookings.updated' };
}

/** Every accepted write, and no refused one, left one audit entry and one event, in the same transaction. */
async function expectTrail(target: ModelTarget, expected: readonly { record: string; action: string; event: string }[]): Promise<void> {
  const { db } = target.database;
  const records = [...new Set(expected.map((e) => e.record))];
  const audit = await db.selectFrom('audit_logs').select(['_id', 'record_id', 'action']).where('record_id', 'in', records).execute();
  const events = await db.selectFrom('outbox_events').select(['audit_id', 'record_id', 'type']).where('record_id', 'in', records).execute();
  const actionOf = new Map(audit.map((a) => [String(a._id), String(a.action)]));
  const pairs = (list: readonly string[]) => [...list].sort();
  expect(pairs(audit.map((a) => `${String(a.record_id)} ${String(a.action)}`))).toEqual(pairs(expected.map((e) => `${e.record} ${e.action}`)));
  // Each event names the audit entry of its write.
  expect(pairs(events.map((e) => `${String(e.record_id)} ${String(e.type)} ${actionOf.get(String(e.audit_id)) ?? 'no audit entry'}`))).toEqual(
    pairs(expected.map((e) => `${e.record} ${e.event} ${e.action}`)),
  );
}

/** The property: every batch of a run is answered as some serial order of it, and stores that order's result. */
export function concurrencyProperty(target: ModelTarget) {
  return fc.asyncProperty(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })), fc.array(batch, { minLength: 3, maxLength: 8 }), async (totals, batches) => {
    const products: Product[] = [];
    for (const total of totals) {
      const created = await target.send(0, { method: 'POST', url: '/v1/products/', body: { name: 'Raced', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: total } });
      expect(created.statusCode, created.body).toBe(201);
      products.push({ id: created.json<{ _id: string }>()._id, etag: String(created.headers.etag), total, maintenance: false, deleted: false });
    }
    const trail = products.map((p) => ({ record: p.id, action: 'create', event: 'products.created' }));
    let world: World = { products, bookings: [], keys: new Map() };
    const keys: RunKeys = { tag: `${products[0]?.id ?? ''}`, first: new Map() };
    for (const [number, commands] of batches.entries()) {
      const ops = resolve(world, commands, keys);
      const answers = await Promise.all(ops.map(({ op, instance: i }) => target.send(i, requestFor(world, op))));
      const pending = ops.map(({ op }, i) => ({ op, answer: answers[i] as Reply, seen: outcomeOf(answers[i] as Reply) }));
      const found = serialOrder(world, pending);
      const told = pending.map(({ op, seen, answer }) => ({ op, seen, body: seen.status >= 400 ? answer.json<unknown>() : undefined }));
      expect(found, `batch ${number}: no serial order gives these answers\n${JSON.stringify({ world, answers: told }, null, 1)}`).toBeDefined();
      for (const { op, seen } of pending) for (const kind of kindsOf(op, world, seen)) target.met.add(kind);
      for (const { op, answer, seen } of pending) if (seen.status < 300 && seen.replayed === undefined && op.kind !== 'read') trail.push(trailOf(op, answer, world));
      world = found as World;
      await expectStored(target, world);
      await expectTrail(target, trail);
    }
  });
}
