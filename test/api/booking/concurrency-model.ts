/**
 * The sequential model of the booking core that ./concurrency-model.test.ts holds
 * concurrent batches to: two products, their bookings, orders (./order-model.ts) and the
 * run's idempotency keys, at the service's time; each write's answer as docs/bookings.md and
 * docs/api.md give it, with its audit entries and events; and the search for an order of a
 * batch's events in which the model answers as the service did.
 */
import { isDeepStrictEqual } from 'node:util';
import { overlapping, peakHeld } from './availability-model.js';
import { expireStep, holds, orderStep } from './order-model.js';
import type { Order, OrderOp } from './order-model.js';

export const hours = 6;
export const hourAt = (hour: number) => Date.UTC(2031, 0, 1, hour);

/** A booking's status: `held` and `expired` only an order gives its booking. */
export type Status = 'active' | 'cancelled' | 'completed' | 'held' | 'expired';
/** What a PATCH through /v1/bookings may set a plain booking's status to. */
export type PlainStatus = 'active' | 'cancelled' | 'completed';
const nextStatuses: Readonly<Record<Status, readonly Status[]>> = { active: ['cancelled', 'completed'], cancelled: ['active'], completed: [], held: [], expired: [] };

export interface Booking {
  readonly id: string;
  /** Undefined once an order's write changed it: see {@link Order.etag}. */
  readonly etag: string | undefined;
  readonly product: number;
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
  readonly status: Status;
  /** The order it belongs to: it changes only through that order (409 `managed_by_order`). */
  readonly order?: string;
  /** A `held` booking's `expires_at` (epoch ms): it holds units until then. */
  readonly expires?: number | undefined;
}

export interface Product {
  readonly id: string;
  readonly etag: string;
  readonly total: number;
  /** Its price per hour (`price_unit: hour`), in EUR cents. */
  readonly cents: number;
  readonly maintenance: boolean;
  readonly deleted: boolean;
}

/** What an accepted write leaves: one audit entry (its action) and one outbox event, per record. */
export interface Trail {
  readonly record: string;
  readonly action: string;
  readonly event: string;
}

/** A claimed `Idempotency-Key`: the body it was first sent with, and once that request succeeded, its answer. */
interface Key {
  readonly body: string;
  readonly answer?: Outcome;
}

export interface World {
  readonly products: readonly Product[];
  readonly bookings: readonly Booking[];
  readonly orders: readonly Order[];
  readonly keys: ReadonlyMap<string, Key>;
  /** The service's time during the batch (its injected clock): whether a `held` booking still holds. */
  readonly now: number;
  /** Every accepted write of the run so far, in the order the model applied them. */
  readonly trail: readonly Trail[];
}

/** A request of a batch, with the booking, order or product it names resolved and the ETag it sends in `If-Match`. */
export type Op =
  | { readonly kind: 'create'; readonly product: number; readonly start: number; readonly end: number; readonly quantity: number; readonly status: PlainStatus; readonly key?: string }
  | { readonly kind: 'resize'; readonly id: string; readonly etag: string | undefined; readonly start: number; readonly end: number; readonly quantity: number }
  | { readonly kind: 'status'; readonly id: string; readonly etag: string | undefined; readonly status: PlainStatus }
  | { readonly kind: 'delete'; readonly id: string; readonly etag: string | undefined }
  | { readonly kind: 'product'; readonly product: number; readonly etag: string; readonly total: number; readonly maintenance: boolean }
  | { readonly kind: 'drop'; readonly product: number; readonly etag: string }
  | { readonly kind: 'read'; readonly product: number }
  | OrderOp
  /** The expiry sweep, run beside the batch's requests: one transaction per order it found due (`due`, as of the batch's start). */
  | { readonly kind: 'sweep'; readonly due: readonly string[] };

/** What an answer says, as far as the model decides it. */
export interface Outcome {
  readonly status: number;
  readonly code?: string;
  readonly available?: number;
  readonly held?: number;
  readonly conflicts?: readonly string[];
  /** A product's availability: its units and each hour's booked and available units. */
  readonly slots?: string;
  /** A replay of a stored answer (`Idempotency-Replayed: true`), with the record it created. */
  readonly replayed?: string;
  /** A created order's `total_amount`, in cents. */
  readonly cents?: number;
  /** The order's `status` in a confirm's or cancel's answer. */
  readonly order?: string | undefined;
  /** What a payment event did (`applied`, `ignored`, `failed`). */
  readonly payment?: string;
  /** How many orders a sweep expired. */
  readonly expired?: number;
}

/** The parts of an HTTP answer the model reads, whether it came from `app.inject` or over the network. */
export interface Reply {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>;
  readonly body: string;
  json<T = unknown>(): T;
}

/** The bookings of product `product` that hold units in `world`, all but `except`. */
export function holding(world: World, product: number, except?: string): Booking[] {
  return world.bookings.filter((b) => b.product === product && holds(b, world.now) && b.id !== except);
}

/** The refusal of `quantity` more units of a product over `[start, end)` beside the bookings holding now (all but `except`), if they do not fit (capacity.ts). */
function overCapacity(world: World, index: number, start: number, end: number, quantity: number, except?: string): Outcome | undefined {
  const others = holding(world, index, except);
  const free = (world.products[index] as Product).total - peakHeld(others, start, end);
  return free >= quantity ? undefined : { status: 409, code: 'capacity_exceeded', available: Math.max(0, free), conflicts: ids(overlapping(others, start, end)) };
}

/** The model's answer to write `op` in `world`, and the world after it; `answer` supplies what the service chose (ids, ETags). */
function step(world: World, op: Exclude<Op, { kind: 'read' | 'sweep' }>, answer: Reply): { outcome: Outcome; next: World } {
  if (op.kind === 'order' || op.kind === 'confirm' || op.kind === 'cancel' || op.kind === 'pay') return orderStep(world, op, answer, overCapacity);
  const refuse = (outcome: Outcome) => ({ outcome, next: world });
  const accepted = (outcome: Outcome, next: Omit<World, 'trail'>, record: string, action: string, event: string) => ({
    outcome,
    next: { ...next, trail: [...world.trail, { record, action, event }] },
  });
  const unavailable: Outcome = { status: 409, code: 'product_unavailable' };
  const etag = String(answer.headers.etag);
  if (op.kind === 'create') {
    const product = world.products[op.product] as Product;
    // The reference check: a deleted product is no product.
    if (product.deleted) return refuse({ status: 400 });
    if (product.maintenance) return refuse(unavailable);
    const refused = op.status === 'active' ? overCapacity(world, op.product, op.start, op.end, op.quantity) : undefined;
    if (refused) return refuse(refused);
    const created: Booking = { id: String(answer.json<{ _id?: string }>()._id), etag, product: op.product, start: op.start, end: op.end, quantity: op.quantity, status: op.status };
    return accepted({ status: 201 }, { ...world, bookings: [...world.bookings, created] }, created.id, 'create', 'bookings.created');
  }
  if (op.kind === 'product' || op.kind === 'drop') {
    const product = world.products[op.product] as Product;
    if (product.deleted) return refuse({ status: 404 });
    if (product.etag !== op.etag) return refuse({ status: 412 });
    if (op.kind === 'drop') {
      // Cascade deny: a product with live bookings (cancelled ones too, and every order's) stays.
      if (world.bookings.some((b) => b.product === op.product)) return refuse({ status: 409, code: 'cascade_conflict' });
      return accepted({ status: 204 }, { ...world, products: world.products.map((p, index) => (index === op.product ? { ...p, deleted: true } : p)) }, product.id, 'delete', 'products.deleted');
    }
    // Every modelled booking lies in the future, so all that hold now count against a lower total.
    const held = peakHeld(holding(world, op.product), world.now, Number.MAX_SAFE_INTEGER);
    if (op.total < product.total && held > op.total) return refuse({ status: 409, code: 'capacity_exceeded', available: 0, held, conflicts: ids(holding(world, op.product)) });
    const products = world.products.map((p, index) => (index === op.product ? { ...p, etag, total: op.total, maintenance: op.maintenance } : p));
    return accepted({ status: 200 }, { ...world, products }, product.id, 'update', 'products.updated');
  }
  // Another request of the batch may have deleted or changed the booking first.
  const booking = world.bookings.find((b) => b.id === op.id);
  if (!booking) return refuse({ status: 404 });
  if (booking.etag !== op.etag) return refuse({ status: 412 });
  // An order's booking changes only through its order, whatever the change (booking-hooks.ts).
  if (booking.order !== undefined) return refuse({ status: 409, code: 'managed_by_order' });
  const others = world.bookings.filter((b) => b !== booking);
  if (op.kind === 'delete') return accepted({ status: 204 }, { ...world, bookings: others }, booking.id, 'delete', 'bookings.deleted');
  if (op.kind === 'status' && op.status !== booking.status && !nextStatuses[booking.status].includes(op.status)) return refuse({ status: 409, code: 'invalid_transition' });
  const merged: Booking = op.kind === 'status' ? { ...booking, etag, status: op.status } : { ...booking, etag, start: op.start, end: op.end, quantity: op.quantity };
  const changed = accepted({ status: 200 }, { ...world, bookings: [...others, merged] }, booking.id, 'update', 'bookings.updated');
  // A booking that holds no more than before, at no instant, needs no check (booking-hooks.ts).
  const noMore = holds(booking, world.now) && merged.start >= booking.start && merged.end <= booking.end && merged.quantity <= booking.quantity;
  if (!holds(merged, world.now) || noMore) return changed;
  const product = world.products[booking.product] as Product;
  if (product.maintenance) return refuse(unavailable);
  const refused = overCapacity(world, booking.product, merged.start, merged.end, merged.quantity, booking.id);
  return refused ? refuse(refused) : changed;
}

/** What a product's hourly availability shows in `world`: its units, then each hour's booked and available units. */
function slotsOf(world: World, index: number): [number, ...[number, number][]] {
  const product = world.products[index] as Product;
  const held = holding(world, index);
  const hourly = Array.from({ length: hours }, (_, hour): [number, number] => {
    const booked = peakHeld(held, hourAt(hour), hourAt(hour + 1));
    return [booked, product.maintenance ? 0 : Math.max(0, product.total - booked)];
  });
  return [product.total, ...hourly];
}

function ids(bookings: readonly Booking[]): string[] {
  return bookings.map((b) => b.id).sort();
}

/** The answer as an {@link Outcome}: the status, a replay's record, an order's total or status, a payment's effect, and a problem's code and figures. */
export function outcomeOf(answer: Reply): Outcome {
  const read =
    answer.statusCode === 200 || answer.statusCode === 201
      ? answer.json<{ total_items?: number; slots?: { booked: number; available: number }[]; booking_id?: string; status?: string; total_amount?: number; received?: boolean; outcome?: string }>()
      : {};
  if (read.slots) return { status: 200, slots: JSON.stringify([read.total_items, ...read.slots.map((slot) => [slot.booked, slot.available])]) };
  if (answer.headers['idempotency-replayed'] === 'true') return { status: answer.statusCode, replayed: answer.json<{ _id: string }>()._id };
  if (read.received === true) return { status: 200, payment: String(read.outcome) };
  if (typeof read.booking_id === 'string') return answer.statusCode === 201 ? { status: 201, cents: Math.round(Number(read.total_amount) * 100) } : { status: 200, order: read.status };
  if (answer.statusCode !== 409 && answer.statusCode !== 422) return { status: answer.statusCode };
  const problem = answer.json<{ code: string; available?: number; held?: number; conflicts?: string[] }>();
  if (problem.code !== 'capacity_exceeded') return { status: answer.statusCode, code: problem.code };
  return { status: 409, code: problem.code, available: problem.available, ...(problem.held === undefined ? {} : { held: problem.held }), conflicts: [...(problem.conflicts ?? [])].sort() };
}

/** The body a keyed create sends, as the key's fingerprint compares it. */
function bodyOf(op: Op): string {
  return op.kind === 'create' ? JSON.stringify([op.product, op.start, op.end, op.quantity, op.status]) : '';
}

/**
 * What claiming `key` for `op` answers in `world` (docs/api.md "Idempotency keys"): the key
 * taken (`claimed`, the request goes on to run), or a final answer without running: 422 for
 * another body, 409 while the first request runs, its stored answer once it succeeded.
 */
function claim(world: World, op: Op, key: string): { outcome: Outcome } | { claimed: World } {
  const held = world.keys.get(key);
  if (!held) return { claimed: { ...world, keys: new Map([...world.keys, [key, { body: bodyOf(op) }]]) } };
  if (held.body !== bodyOf(op)) return { outcome: { status: 422, code: 'idempotency_key_reused' } };
  return { outcome: held.answer ?? { status: 409, code: 'idempotency_key_in_use' } };
}

/** A request's answer (a sweep's is what it returned) and where the search has taken it: a keyed create claims its key, then runs. */
export interface Pending {
  readonly op: Op;
  readonly answer: Reply;
  readonly seen: Outcome;
}
/**
 * Where the search has taken a request: not begun, done, between its two events (a keyed
 * create has claimed its key; an availability read has read the product, as of `midway`),
 * or a sweep that has taken `swept` of its due orders and expired `expired` of them.
 */
type Phase = 'waiting' | 'done' | { readonly midway: World } | { readonly swept: number; readonly expired: number };

/** The next event of request `r` at `phase` in `world`, if the model's answer there is the observed one. */
function advance(world: World, r: Pending, phase: Exclude<Phase, 'done'>): { world: World; phase: Phase } | undefined {
  const { op } = r;
  if (op.kind === 'sweep') {
    // One transaction per due order, in turn; its count is the sweep's answer.
    const at = phase === 'waiting' || !('swept' in phase) ? { swept: 0, expired: 0 } : phase;
    const id = op.due[at.swept];
    const { expired, next } = id === undefined ? { expired: 0, next: world } : expireStep(world, id);
    const after = { swept: at.swept + 1, expired: at.expired + expired };
    if (after.expired > (r.seen.expired ?? 0)) return undefined;
    if (after.swept < op.due.length) return { world: next, phase: after };
    return after.expired === r.seen.expired ? { world: next, phase: 'done' } : undefined;
  }
  if (op.kind === 'read') {
    // Two statements: the product (its units, its status), then the bookings it holds.
    if (phase === 'waiting') {
      if (!(world.products[op.product] as Product).deleted) return r.seen.status === 200 ? { world, phase: { midway: world } } : undefined;
      return r.seen.status === 404 ? { world, phase: 'done' } : undefined;
    }
    if (!('midway' in phase)) return undefined;
    const asRead = { ...world, products: phase.midway.products };
    return isDeepStrictEqual({ status: 200, slots: JSON.stringify(slotsOf(asRead, op.product)) }, r.seen) ? { world, phase: 'done' } : undefined;
  }
  const key = op.kind === 'create' ? op.key : undefined;
  if (key !== undefined && phase === 'waiting') {
    const claimed = claim(world, op, key);
    if ('claimed' in claimed) return r.seen.replayed === undefined && !String(r.seen.code).startsWith('idempotency_') ? { world: claimed.claimed, phase: { midway: world } } : undefined;
    return isDeepStrictEqual(claimed.outcome, r.seen) ? { world, phase: 'done' } : undefined;
  }
  const { outcome, next } = step(world, op, r.answer);
  if (!isDeepStrictEqual(outcome, r.seen)) return undefined;
  if (key === undefined) return { world: next, phase: 'done' };
  // The run ends: a success is stored for replays, anything else releases the key.
  const keys = new Map(next.keys);
  if (outcome.status === 201) keys.set(key, { body: bodyOf(op), answer: { status: 201, replayed: r.answer.json<{ _id: string }>()._id } });
  else keys.delete(key);
  return { world: { ...next, keys }, phase: 'done' };
}

/**
 * The worlds after each order of the batch's events in which the model answers every request
 * as the service did, first found first; none if there is none. A write is one event; a keyed
 * create is two (its claim, then its run), so a repeat can meet the key while the first still
 * runs; so is an availability read (the product, then its bookings), so a write may land
 * between them; a sweep is one event per order it found due. Depth first, each event tried
 * next only where the model gives the observed answer, so a batch of five costs far fewer
 * than its orders. Orders that answer alike may still leave different worlds (a cancel and
 * a payment of the wrong amount: paid first, the mismatch is audited; cancelled first, it is
 * not), so the caller takes the one the service stored, if any.
 */
export function* serialOrders(world: World, pending: readonly Pending[], phases: readonly Phase[] = pending.map(() => 'waiting')): Generator<World, void, undefined> {
  if (phases.every((phase) => phase === 'done')) {
    yield world;
    return;
  }
  for (const [index, request] of pending.entries()) {
    const phase = phases[index] as Phase;
    if (phase === 'done') continue;
    const next = advance(world, request, phase);
    if (!next) continue;
    yield* serialOrders(
      next.world,
      pending,
      phases.map((p, i) => (i === index ? next.phase : p)),
    );
  }
}
