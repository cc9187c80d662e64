/**
 * One run of the booking concurrency model against a running service, wherever it runs:
 * in this process (./concurrency-model.test.ts) or as processes behind nginx
 * (../ops/deployment.test.ts). A run creates two priced products and an incoming webhook,
 * then sends random batches of booking, order and product writes, payment events and
 * availability reads all at once, with the expiry sweep beside them, and moves the service's
 * clock between batches where the target can; each batch's answers must be those of
 * ./concurrency-model.ts in some serial order, and after each batch the stored rows, every
 * instance's availability, the audit trail and the outbox must be that order's.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import type { Database } from '../../../src/db/dialect.js';
import { sweepExpiredOrders } from '../../../src/selling/order-expiry.js';
import { peakHeld } from './availability-model.js';
import { holding, hourAt, hours, outcomeOf, serialOrders } from './concurrency-model.js';
import type { Booking, Op, Outcome, Pending, PlainStatus, Product, Reply, World } from './concurrency-model.js';
import { dueOrders, holds } from './order-model.js';
import type { Order } from './order-model.js';

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
  /** The service's database, to run the expiry sweep on and to compare the stored rows, the audit trail and the outbox. */
  readonly database: Database;
  /** The clock every instance of the service reads. */
  readonly clock: Clock;
  /**
   * Moves that clock forward, if the target can (in-process instances share a movable clock;
   * processes behind nginx read the system's). Without it, every order holds the default 15
   * minutes and no hold runs out within a run.
   */
  readonly advance?: (ms: number) => void;
  /** Each kind of answer the run met (`create 201`, `lost race 412`, …), for the caller's check that the run judged them. */
  readonly met: Set<string>;
}

const iso = (at: number) => new Date(at).toISOString();
const second = 1000;
/**
 * A clock step between batches, and the holds an order may ask for (`undefined`: the
 * default 900 s): each hold runs out a second or more after a number of steps and 46 s or
 * more before the next, so no hold runs out while a batch runs (a run lasts a few seconds of
 * wall time; the run checks it) and the model knows at every batch which holds still hold.
 */
const clockStep = 61 * second;
const holdChoices = [60, 60, 120, undefined] as const;
/** Each product's price per hour, in EUR cents. */
const prices = [1250, 4000] as const;

/**
 * A command as generated: which booking, order or product it names is resolved when its
 * batch is sent. `product` names a product that is still there unless `ghost` (once in four)
 * lets it name a deleted one, so a deleted product does not waste half of a run's commands.
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
  | { readonly kind: 'status'; readonly target: number; readonly status: PlainStatus }
  | { readonly kind: 'delete'; readonly target: number }
  | { readonly kind: 'product'; readonly product: number; readonly ghost: boolean; readonly total: number; readonly maintenance: boolean }
  | { readonly kind: 'drop'; readonly product: number; readonly ghost: boolean }
  | { readonly kind: 'read'; readonly product: number; readonly ghost: boolean }
  /** An order; `hold` picks from {@link holdChoices}. */
  | { readonly kind: 'order'; readonly product: number; readonly ghost: boolean; readonly start: number; readonly length: number; readonly quantity: number; readonly hold: number }
  | { readonly kind: 'confirm'; readonly target: number }
  | { readonly kind: 'cancel'; readonly target: number }
  /** A payment event for an order (an unpaid one where there is one): its total, or a cent less. */
  | { readonly kind: 'pay'; readonly target: number; readonly right: boolean }
  /** A change of an order's booking through /v1/bookings: 409 `managed_by_order`. */
  | { readonly kind: 'managed'; readonly target: number; readonly how: 'status' | 'resize' | 'delete' }
  /** The expiry sweep, beside the requests; `instance` is unused (the sweep runs on the target's database). */
  | { readonly kind: 'sweep' }
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
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      instance,
      target: fc.nat(),
      status: fc.constantFrom<PlainStatus>('active', 'active', 'active', 'cancelled', 'cancelled', 'completed'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), instance, target: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('product' as const), instance, product, ghost, total: fc.integer({ min: 0, max: 3 }), maintenance: oneIn(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), instance, product, ghost }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), instance, product, ghost }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('order' as const), instance, product, ghost, ...span, hold: fc.nat({ max: holdChoices.length - 1 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('confirm' as const), instance, target: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancel' as const), instance, target: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pay' as const), instance, target: fc.nat(), right: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('managed' as const), instance, target: fc.nat(), how: fc.constantFrom('status' as const, 'resize' as const, 'delete' as const) }) },
);
const sweep: Command = { kind: 'sweep', instance: 0 };
/**
 * A batch's commands, and whether the clock moves one {@link clockStep} before it (in two
 * batches of three, where the target can move it). The expiry sweep runs beside the
 * requests of one batch in four, and of one in two right after a step; it is then one of the
 * batch's two to five.
 */
const batch = fc
  .record({ step: fc.nat({ max: 2 }).map((n) => n > 0), sweeps: fc.nat({ max: 3 }), commands: fc.array(command, { minLength: 2, maxLength: 5 }) })
  .map(({ step, sweeps, commands }) => ({ step, commands: sweeps === 0 || (step && sweeps === 1) ? [sweep, ...commands.slice(1)] : commands }));

const availabilityUrl = (product: Product) => `/v1/products/${product.id}/availability?from=${iso(hourAt(0))}&to=${iso(hourAt(hours))}&granularity=hour`;

/** The target's incoming webhook (Standard Webhooks), which payment events are signed for. */
interface Hook {
  readonly id: string;
  readonly secret: string;
}

const hooks = new WeakMap<ModelTarget, Hook>();

/** The target's incoming webhook, made by its first run. */
async function hookOf(target: ModelTarget): Promise<Hook> {
  const known = hooks.get(target);
  if (known) return known;
  const made = await target.send(0, { method: 'POST', url: '/v1/webhooks', body: { direction: 'incoming', scheme: 'standard-webhooks' } });
  expect(made.statusCode, made.body).toBe(201);
  const hook = { id: made.json<{ _id: string }>()._id, secret: made.json<{ secret: string }>().secret };
  hooks.set(target, hook);
  return hook;
}

/** The request that carries `op`; a payment event is signed at the service's time. */
function requestFor(world: World, op: Exclude<Op, { kind: 'sweep' }>, hook: Hook, clock: Clock): ModelRequest {
  const ifMatch = (etag: string | undefined) => ({ 'if-match': etag ?? '"not read back"' });
  if (op.kind === 'create') {
    const product = world.products[op.product] as Product;
    const body = { product_id: product.id, start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity, status: op.status };
    return { method: 'POST', url: '/v1/bookings/', body, ...(op.key === undefined ? {} : { headers: { 'idempotency-key': op.key } }) };
  }
  if (op.kind === 'order') {
    const product = world.products[op.product] as Product;
    const body = { product_id: product.id, start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity, ...(op.hold === undefined ? {} : { hold_seconds: op.hold }) };
    return { method: 'POST', url: '/v1/orders', body };
  }
  if (op.kind === 'confirm') return { method: 'POST', url: `/v1/orders/${op.id}/confirm`, headers: ifMatch(op.etag) };
  if (op.kind === 'cancel') return { method: 'PATCH', url: `/v1/orders/${op.id}`, body: { status: 'cancelled' }, headers: ifMatch(op.etag) };
  if (op.kind === 'pay') {
    // As a payment provider sends it (test/api/selling/orders.test.ts): the signature covers this exact JSON.
    const body = { type: 'orders.paid', data: { order_id: op.id, amount: op.cents / 100, currency: 'EUR' } };
    const at = new Date(clock.now());
    const headers = { 'webhook-id': op.event, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(hook.secret).sign(op.event, at, JSON.stringify(body)) };
    return { method: 'POST', url: `/v1/webhooks/${hook.id}/receive`, body, headers };
  }
  if (op.kind === 'product') {
    const product = world.products[op.product] as Product;
    const body = { total_items: op.total, status: op.maintenance ? 'maintenance' : 'active' };
    return { method: 'PATCH', url: `/v1/products/${product.id}`, body, headers: { 'if-match': op.etag } };
  }
  if (op.kind === 'read') return { method: 'GET', url: availabilityUrl(world.products[op.product] as Product) };
  if (op.kind === 'drop') return { method: 'DELETE', url: `/v1/products/${(world.products[op.product] as Product).id}`, headers: { 'if-match': op.etag } };
  if (op.kind === 'delete') return { method: 'DELETE', url: `/v1/bookings/${op.id}`, headers: ifMatch(op.etag) };
  const body = op.kind === 'status' ? { status: op.status } : { start_time: iso(op.start), end_time: iso(op.end), quantity: op.quantity };
  return { method: 'PATCH', url: `/v1/bookings/${op.id}`, body, headers: ifMatch(op.etag) };
}

/** A run's `Idempotency-Key`s (unique to the run, as keys are scoped by client and route) and the create each was first sent with; its payment event ids. */
interface RunKeys {
  readonly tag: string;
  readonly first: Map<string, Op>;
  events: number;
}

/**
 * The batch's commands as requests, each with the ETag the model holds: two that name the
 * same record race, and all but the first to commit must find their ETag stale. A keyed
 * create resends, when asked, the body its key was first sent with.
 */
function resolve(world: World, commands: readonly Command[], keys: RunKeys, holdsRunOut: boolean): { op: Op; instance: number }[] {
  const ops: { op: Op; instance: number }[] = [];
  const live = world.products.flatMap((p, index) => (p.deleted ? [] : [index]));
  const productOf = (c: { product: number; ghost: boolean }) => (c.ghost || live.length === 0 || live.includes(c.product) ? c.product : (live[0] as number));
  const pick = <T>(among: readonly T[], target: number): T | undefined => among[target % Math.max(1, among.length)];
  const stay = (c: { start: number; length: number }) => ({ start: hourAt(c.start), end: hourAt(Math.min(hours, c.start + c.length)) });
  for (const c of commands) {
    if (c.kind === 'create') {
      const key = c.key === null ? undefined : `${keys.tag}-${c.key}`;
      const own: Op = { kind: 'create', product: productOf(c), ...stay(c), quantity: c.quantity, status: c.cancelled ? 'cancelled' : 'active' };
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
    if (c.kind === 'order') {
      ops.push({ instance: c.instance, op: { kind: 'order', product: productOf(c), ...stay(c), quantity: c.quantity, hold: holdsRunOut ? holdChoices[c.hold] : undefined } });
      continue;
    }
    if (c.kind === 'sweep') {
      // Only once there is an order for it to look at.
      if (world.orders.some((o) => o.status === 'active')) ops.push({ instance: c.instance, op: { kind: 'sweep', due: dueOrders(world) } });
      continue;
    }
    if (c.kind === 'confirm' || c.kind === 'cancel' || c.kind === 'pay') {
      // Mostly an order still unpaid (its hold live, run out or expired), one the batch's sweep races
      // for where there is one; now and then any order.
      const unpaid = world.orders.filter((o) => o.status === 'active' || o.status === 'expired');
      const due = commands.some((other) => other.kind === 'sweep') ? unpaid.filter((o) => dueOrders(world).includes(o.id)) : [];
      const order = pick(c.target % 2 === 0 || unpaid.length === 0 ? world.orders : due.length > 0 ? due : unpaid, Math.floor(c.target / 2));
      if (!order) continue;
      if (c.kind === 'pay') {
        keys.events += 1;
        ops.push({ instance: c.instance, op: { kind: 'pay', id: order.id, cents: c.right ? order.cents : order.cents - 1, event: `${keys.tag}-paid-${keys.events}` } });
      } else ops.push({ instance: c.instance, op: { kind: c.kind, id: order.id, etag: order.etag } });
      continue;
    }
    if (c.kind === 'managed') {
      const booking = pick(
        world.bookings.filter((b) => b.order !== undefined),
        c.target,
      );
      if (!booking) continue;
      const { id, etag } = booking;
      const op: Op =
        c.how === 'delete'
          ? { kind: 'delete', id, etag }
          : c.how === 'status'
            ? { kind: 'status', id, etag, status: 'cancelled' }
            : { kind: 'resize', id, etag, ...stay(booking.start === hourAt(0) ? { start: 1, length: 1 } : { start: 0, length: 1 }), quantity: 1 };
      ops.push({ instance: c.instance, op });
      continue;
    }
    // Bookings made through /v1/bookings; setting `active` is mostly a reactivation: it names a cancelled booking where there is one.
    const plain = world.bookings.filter((b) => b.order === undefined);
    const cancelled = plain.filter((b) => b.status === 'cancelled');
    const booking = pick(c.kind === 'status' && c.status === 'active' && cancelled.length > 0 ? cancelled : plain, c.target);
    if (!booking) continue;
    const { id, etag } = booking;
    const op: Op =
      c.kind === 'delete' ? { kind: 'delete', id, etag } : c.kind === 'status' ? { kind: 'status', id, etag, status: c.status } : { kind: 'resize', id, etag, ...stay(c), quantity: c.quantity };
    ops.push({ instance: c.instance, op });
  }
  return ops;
}

/** A payment or confirm after the hold ran out, either way (`late` or `refund_required`), as one kind too. */
const settledLate = (what: string) => (what === 'late' ? ['settled after the hold ran out: confirmed'] : what === 'refund_required' ? ['settled after the hold ran out: refund_required'] : []);

/** Whether `order` still holds unpaid in `world` (its hold has not run out). */
const live = (world: World, order: Order | undefined) => order?.status === 'active' && order.expires !== undefined && order.expires > world.now;

/** The kinds of answer `seen` to `op` counts as, for the check that a run judged every kind; `before` and `after` are the worlds around the batch. */
function kindsOf(op: Op, before: World, after: World, seen: Outcome, batch: readonly Op[]): string[] {
  // A request that another of its batch beat to the record: its ETag went stale, or the record.
  const lost = seen.status === 412 || seen.status === 404 ? [`lost race ${seen.status}`] : [];
  if (op.kind === 'sweep') return [seen.expired === 0 ? 'sweep none due' : 'sweep expired'];
  if (op.kind === 'order') {
    const kinds = [`order ${seen.code ?? seen.status}`];
    // Accepted beside holds that ran out but are still `held` (not swept): counted regardless of
    // their expires_at, they and what holds after the batch would overlap more units than there are.
    const runOut = after.bookings.filter((b) => b.product === op.product && b.status === 'held' && !holds(b, after.now));
    const total = (after.products[op.product] as Product).total;
    if (seen.status === 201 && runOut.length > 0 && peakHeld([...holding(after, op.product), ...runOut], op.start, op.end) > total) kinds.push('order beside a run-out hold');
    return kinds;
  }
  if (op.kind === 'confirm' || op.kind === 'cancel' || op.kind === 'pay') {
    const was = before.orders.find((o) => o.id === op.id);
    const now = after.orders.find((o) => o.id === op.id);
    const late = !live(before, was) && now?.status === 'confirmed' && was?.status !== 'confirmed';
    // The batch also sweeps an order this request settles: whichever commits first, one outcome.
    const racing = was?.status === 'active' && !live(before, was) && batch.some((other) => other.kind === 'sweep') ? [`${op.kind} racing the sweep`, 'racing the sweep'] : [];
    if (op.kind === 'pay') {
      // A refusal for the amount is audited; one of an order that is no longer unpaid is not.
      const mismatch = after.trail.slice(before.trail.length).some((e) => e.record === op.id && e.action === 'payment_mismatch');
      const failed = mismatch && op.cents !== was?.cents ? 'wrong amount' : now?.status === 'refund_required' ? 'refund_required' : 'failed';
      const what = seen.payment === 'applied' ? (late ? 'late' : 'applied') : seen.payment === 'failed' ? failed : String(seen.payment);
      return [`pay ${what}`, ...settledLate(what), ...racing];
    }
    if (op.kind === 'confirm' && seen.status === 200) {
      const what = was?.status === 'confirmed' ? 'again' : late ? 'late' : String(seen.order);
      return [`confirm ${what}`, ...settledLate(what), ...racing];
    }
    return [`${op.kind} ${seen.code ?? seen.status}`, ...lost, ...racing];
  }
  const booking = 'id' in op ? before.bookings.find((b) => b.id === op.id) : undefined;
  if (booking?.order !== undefined) return [`managed ${seen.code ?? seen.status}`, ...lost];
  const what = op.kind === 'status' && booking?.status === 'cancelled' && op.status === 'active' ? 'reactivate' : op.kind === 'product' ? 'total' : op.kind;
  return [`${what} ${seen.replayed === undefined ? (seen.code ?? seen.status) : 'replayed'}`, ...lost];
}

/** A stored timestamp (or null) as epoch ms (or undefined). */
function instant(database: Database, value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Date.parse(String(database.dialect.fromDb('timestamp', value)));
}

/**
 * The state a batch leaves, as the model and the stored rows both give it: the bookings and
 * orders of the run's products, and, of the records in the trail, every audit entry (`record
 * action`) and every outbox event with the audit entry it names (`record type action`).
 */
interface State {
  readonly bookings: readonly StateBooking[];
  readonly orders: readonly StateOrder[];
  readonly audit: readonly string[];
  readonly events: readonly string[];
}
type StateBooking = Pick<Booking, 'id' | 'product' | 'start' | 'end' | 'quantity' | 'status' | 'order' | 'expires'>;
type StateOrder = Pick<Order, 'id' | 'product' | 'booking' | 'cents' | 'status' | 'expires'>;

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : 1);

/** {@link State} of a world the model reached. */
function modelled(world: World): State {
  return {
    bookings: world.bookings.map(({ id, product, start, end, quantity, status, order, expires }) => ({ id, product, start, end, quantity, status, order, expires })).sort(byId),
    orders: world.orders.map(({ id, product, booking, cents, status, expires }) => ({ id, product, booking, cents, status, expires })).sort(byId),
    audit: world.trail.map((e) => `${e.record} ${e.action}`).sort(),
    events: world.trail.map((e) => `${e.record} ${e.event} ${e.action}`).sort(),
  };
}

/** {@link State} as stored, for the run's products and the records of `records`; with every stored ETag, and each product's stored `total_items`. */
async function stored(target: ModelTarget, products: readonly Product[], records: readonly string[]): Promise<State & { etags: ReadonlyMap<string, string>; totals: readonly number[] }> {
  const { database } = target;
  const { db } = database;
  const productIds = products.map((p) => p.id);
  const totals = await db.selectFrom('products').select(['_id', 'total_items']).where('_id', 'in', productIds).execute();
  const bookings = await db
    .selectFrom('bookings')
    .select(['_id', 'product_id', 'start_time', 'end_time', 'quantity', 'status', 'order_id', 'expires_at', 'etag'])
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
  const orders = await db
    .selectFrom('orders')
    .select(['_id', 'product_id', 'booking_id', 'total_amount', 'status', 'expires_at', 'etag'])
    .where('product_id', 'in', productIds)
    .where('deleted_at', 'is', null)
    .execute();
  const audit = await db.selectFrom('audit_logs').select(['_id', 'record_id', 'action']).where('record_id', 'in', records).execute();
  const events = await db.selectFrom('outbox_events').select(['audit_id', 'record_id', 'type']).where('record_id', 'in', records).execute();
  const actionOf = new Map(audit.map((a) => [String(a._id), String(a.action)]));
  return {
    bookings: bookings
      .map((b) => ({
        id: String(b._id),
        product: productIds.indexOf(String(b.product_id)),
        start: instant(database, b.start_time) as number,
        end: instant(database, b.end_time) as number,
        quantity: Number(b.quantity),
        status: String(b.status) as Booking['status'],
        order: (b.order_id as string | null) ?? undefined,
        expires: instant(database, b.expires_at),
      }))
      .sort(byId),
    orders: orders
      .map((o) => ({
        id: String(o._id),
        product: productIds.indexOf(String(o.product_id)),
        booking: String(o.booking_id),
        cents: Math.round(Number(o.total_amount) * 100),
        status: String(o.status) as Order['status'],
        expires: instant(database, o.expires_at),
      }))
      .sort(byId),
    audit: audit.map((a) => `${String(a.record_id)} ${String(a.action)}`).sort(),
    // Each event names the audit entry of its write.
    events: events.map((e) => `${String(e.record_id)} ${String(e.type)} ${actionOf.get(String(e.audit_id)) ?? 'no audit entry'}`).sort(),
    etags: new Map([...bookings, ...orders].map((row) => [String(row._id), String(row.etag)])),
    totals: productIds.map((id) => Number(totals.find((t) => t._id === id)?.total_items)),
  };
}

/**
 * Of the worlds the model reaches by the serial orders that answer as the service did
 * (`found`, first found first), the one whose bookings, orders, audit trail and outbox are
 * the stored ones: every accepted write (no refused one, no replay) left one audit entry and
 * one event naming it, in the same transaction. Fails, showing the first world's difference,
 * if there is none. The ETags the model could not know (changed by an event that answers
 * none) are read back; those it took from answers must be the stored ones.
 */
async function expectStored(target: ModelTarget, found: Iterator<World, void>, first: World): Promise<World> {
  const state = await stored(target, first.products, [...new Set(first.trail.map((e) => e.record))]);
  expectInvariants(state, target.clock.now());
  const tried = new Set<string>();
  let world = first;
  for (let next: IteratorResult<World, void> = { done: false, value: first }; !next.done; next = found.next()) {
    const candidate = modelled(next.value);
    const key = JSON.stringify(candidate);
    if (tried.has(key)) continue;
    tried.add(key);
    if (isDeepStrictEqual(candidate, { bookings: state.bookings, orders: state.orders, audit: state.audit, events: state.events })) {
      world = next.value;
      break;
    }
  }
  const expected = modelled(world);
  expect(state.bookings).toEqual(expected.bookings);
  expect(state.orders).toEqual(expected.orders);
  expect(state.audit).toEqual(expected.audit);
  expect(state.events).toEqual(expected.events);
  const known = [...world.bookings, ...world.orders].filter((r) => r.etag !== undefined);
  expect(known.map((r) => `${r.id} ${state.etags.get(r.id)}`)).toEqual(known.map((r) => `${r.id} ${r.etag}`));
  return {
    ...world,
    bookings: world.bookings.map((b): Booking => (b.etag === undefined ? { ...b, etag: state.etags.get(b.id) } : b)),
    orders: world.orders.map((o): Order => (o.etag === undefined ? { ...o, etag: state.etags.get(o.id) } : o)),
  };
}

/**
 * The invariants, read from the stored rows alone at the service's time `now`: at no instant
 * does a product have more units held (bookings `active` or `completed`, and `held` ones
 * whose `expires_at` is later than now) than it has; and no order that is `expired`,
 * `refund_required`, or `active` past its `expires_at` (unpaid, run out) has a booking that
 * holds units.
 */
function expectInvariants(state: { readonly bookings: readonly StateBooking[]; readonly orders: readonly StateOrder[]; readonly totals: readonly number[] }, now: number): void {
  const holdsNow = (b: StateBooking) => b.status === 'active' || b.status === 'completed' || (b.status === 'held' && b.expires !== undefined && b.expires > now);
  for (const [product, total] of state.totals.entries()) {
    const held = state.bookings.filter((b) => b.product === product && holdsNow(b));
    expect(peakHeld(held, hourAt(0), hourAt(hours)), `units held of product ${product}`).toBeLessThanOrEqual(total);
  }
  const unpaid = state.orders.filter((o) => o.status === 'expired' || o.status === 'refund_required' || (o.status === 'active' && (o.expires ?? 0) <= now));
  const holding = unpaid.filter((o) => state.bookings.some((b) => b.id === o.booking && holdsNow(b)));
  expect(
    holding.map((o) => `${o.id} ${o.status}`),
    'unpaid orders whose booking holds units',
  ).toEqual([]);
}

/** Each instance's hourly availability of each product is the model's (all read at once: nothing writes meanwhile). */
async function expectAvailability(target: ModelTarget, world: World): Promise<void> {
  const reads = world.products.flatMap((product, index) => {
    const read = { method: 'GET', url: availabilityUrl(product) };
    if (product.deleted) return target.instances.map(async (via) => expect((await via(read)).statusCode).toBe(404));
    const held = holding(world, index);
    const slots = Array.from({ length: hours }, (_, hour) => {
      const booked = peakHeld(held, hourAt(hour), hourAt(hour + 1));
      expect(booked, `the invariant at hour ${hour}`).toBeLessThanOrEqual(product.total);
      return { start: iso(hourAt(hour)), end: iso(hourAt(hour + 1)), booked, available: product.maintenance ? 0 : Math.max(0, product.total - booked) };
    });
    return target.instances.map(async (via) => {
      const answer = await via(read);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toMatchObject({ total_items: product.total, slots });
    });
  });
  await Promise.all(reads);
}

/** A sweep's result as an answer, so the search reads it like the others. */
function sweepAnswer(result: { expired: number }): Reply {
  return { statusCode: 200, headers: {}, body: JSON.stringify(result), json: <T>() => result as T };
}

/** The holds of `world` that run out within `[from, to]`: whether they still held was up to the instant each request read them. */
function runningOut(world: World, from: number, to: number): string[] {
  return world.bookings.filter((b) => b.status === 'held' && b.expires !== undefined && from < b.expires && b.expires <= to).map((b) => b.id);
}

/** The property: every batch of a run is answered as some serial order of it, and stores that order's result. */
export function concurrencyProperty(target: ModelTarget) {
  return fc.asyncProperty(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })), fc.array(batch, { minLength: 4, maxLength: 10 }), async (totals, batches) => {
    const products: Product[] = [];
    for (const [index, total] of totals.entries()) {
      const cents = prices[index] as number;
      const body = { name: 'Raced', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: total, price: cents / 100, price_unit: 'hour', currency: 'EUR' };
      const created = await target.send(0, { method: 'POST', url: '/v1/products/', body });
      expect(created.statusCode, created.body).toBe(201);
      products.push({ id: created.json<{ _id: string }>()._id, etag: String(created.headers.etag), total, cents, maintenance: false, deleted: false });
    }
    const hook = await hookOf(target);
    const trail = products.map((p) => ({ record: p.id, action: 'create', event: 'products.created' }));
    let world: World = { products, bookings: [], orders: [], keys: new Map(), now: target.clock.now(), trail };
    const keys: RunKeys = { tag: `${products[0]?.id ?? ''}`, first: new Map(), events: 0 };
    try {
      for (const [number, { step, commands }] of batches.entries()) {
        if (step && target.advance) target.advance(clockStep);
        const before: World = { ...world, now: target.clock.now() };
        const ops = resolve(before, commands, keys, target.advance !== undefined);
        const answers = await Promise.all(
          ops.map(({ op, instance: i }) => (op.kind === 'sweep' ? sweepExpiredOrders(target.database, target.clock).then(sweepAnswer) : target.send(i, requestFor(before, op, hook, target.clock)))),
        );
        const after = target.clock.now();
        expect(runningOut(before, before.now, after), `holds that ran out while batch ${number} ran (${after - before.now} ms)`).toEqual([]);
        const pending: Pending[] = ops.map(({ op }, i) => {
          const answer = answers[i] as Reply;
          return { op, answer, seen: op.kind === 'sweep' ? { status: 200, expired: answer.json<{ expired: number }>().expired } : outcomeOf(answer) };
        });
        const found = serialOrders(before, pending);
        const first = found.next();
        const told = pending.map(({ op, seen, answer }) => ({ op, seen, body: seen.status >= 400 ? answer.json<unknown>() : undefined }));
        if (first.done) expect.fail(`batch ${number}: no serial order gives these answers\n${JSON.stringify({ world: { ...before, trail: undefined }, answers: told }, null, 1)}`);
        // An order holds for its hold_seconds from the moment the service made it.
        for (const { op, answer, seen } of pending) {
          if (op.kind !== 'order' || seen.status !== 201) continue;
          const expiresIn = Date.parse(answer.json<{ expires_at: string }>().expires_at) - (op.hold ?? 900) * second;
          expect(expiresIn >= before.now - second && expiresIn <= after + second, `expires_at of ${answer.body}`).toBe(true);
        }
        world = await expectStored(target, found, first.value);
        const batchOps = ops.map((o) => o.op);
        for (const { op, seen } of pending) for (const kind of kindsOf(op, before, world, seen, batchOps)) target.met.add(kind);
        await expectAvailability(target, world);
      }
    } finally {
      // Every order of the run runs out, for good: the next run's sweeps count only its own.
      if (world.orders.some((o) => o.status === 'active')) await sweepExpiredOrders(target.database, { now: () => target.clock.now() + 2 * 86_400 * second });
    }
  });
}
