import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import { IpAllowlist } from '../lib/ip-allowlist.js';
import { asSystem, systemScope } from '../core/principal.js';
import type { Principal } from '../core/principal.js';
import type { TenantDirectory } from '../security/tenant-directory.js';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import { checkValue } from '../actions/input-schemas.js';
import { incomingEventSchemas } from '../actions/incoming-event-schemas.js';
import type { IncomingScheme } from '../actions/incoming-event-schemas.js';
import { signatureHeader } from './signature.js';
import { fromMinor, isCurrency } from '../lib/money.js';
import { settleOrder } from '../selling/order-payment.js';
import type { Payment } from '../selling/order-payment.js';

const webhooks = getResource('webhooks');
const orders = getResource('orders');
const toleranceSeconds = 300;
/** How long a claim may stay `processing` before another delivery of the event takes it over. */
const staleClaimMs = 60_000;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The sender's event, once its signature checked out. */
interface SignedEvent {
  readonly id: string;
  readonly type: string;
  /** The order the event pays for, if it is a payment event. */
  readonly orderId: string | undefined;
  /** The money it reports (docs/selling.md "Payment"). */
  readonly payment: Payment;
  /** A Stripe Checkout Session's `payment_status` when it says the money has not arrived. */
  readonly unpaid?: string;
}

function one(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The signed body as the scheme's event: JSON, and valid against its schema (`actions/incoming-event-schemas.ts`). */
function parseEvent(scheme: IncomingScheme, body: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
  }
  checkValue(incomingEventSchemas[scheme], value, 'body');
  return value as Record<string, unknown>;
}

const unauthorized = (detail: string) => new ApiError('unauthenticated', detail);
const stillProcessing = () => new ApiError('conflict', 'This event is still being processed; retry later', { headers: { 'retry-after': '1' } });

/** One `<version>,<base64>` entry of a `webhook-signature` header (`v1a,` for asymmetric keys, and later versions, are well-formed). */
const signatureEntry = /^(v\d+[a-z]*),([A-Za-z0-9+/]+={0,2})$/;

/**
 * The `v1,…` entries of a `webhook-signature` header, or undefined when the header is
 * malformed: not space-separated `<version>,<base64>` entries, or none of them `v1` (the
 * only version this service verifies). A malformed header is a 400; a well-formed one
 * with no matching signature is a 401.
 */
function v1Signatures(header: string): string[] | undefined {
  const v1: string[] = [];
  for (const entry of header.trim().split(/ +/)) {
    const [, version, signature] = signatureEntry.exec(entry) ?? [];
    if (!version || !signature || signature.length % 4 !== 0) return undefined;
    if (version === 'v1') v1.push(entry);
  }
  return v1.length > 0 ? v1 : undefined;
}

/** Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` (`v1,<base64>` …). */
function standardWebhooks(secret: string, headers: Headers, body: string, nowSeconds: number): SignedEvent {
  const id = one(headers, 'webhook-id');
  const timestamp = one(headers, 'webhook-timestamp');
  const signatures = one(headers, 'webhook-signature');
  const candidates = signatures ? v1Signatures(signatures) : undefined;
  // Each bad header is named with what is wrong with it.
  const problems = [
    !id ? { field: 'webhook-id', message: 'is required' } : id.length > 200 ? { field: 'webhook-id', message: 'must be at most 200 characters' } : undefined,
    !timestamp
      ? { field: 'webhook-timestamp', message: 'is required' }
      : !/^\d{1,15}$/.test(timestamp)
        ? { field: 'webhook-timestamp', message: 'must be whole seconds since the Unix epoch (digits only)' }
        : undefined,
    !signatures ? { field: 'webhook-signature', message: 'is required' } : !candidates ? { field: 'webhook-signature', message: 'must be space-separated v1,<base64 signature> entries' } : undefined,
  ].filter((problem) => problem !== undefined);
  if (!id || !timestamp || !candidates || problems.length > 0) throw validationError(problems);
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) throw unauthorized('webhook-timestamp is outside the 300 s tolerance');
  const expected = signatureHeader([secret], id, Number(timestamp), body);
  if (!candidates.some((candidate) => sameText(candidate, expected))) throw unauthorized('No signature matches');
  const payload = parseEvent('standard-webhooks', body);
  const data = payload.data as Record<string, unknown> | undefined;
  const payment = { amount: typeof data?.amount === 'number' ? data.amount : undefined, currency: typeof data?.currency === 'string' ? data.currency : undefined };
  return { id, type: typeof payload.type === 'string' ? payload.type : '', orderId: typeof data?.order_id === 'string' ? data.order_id : undefined, payment };
}

/** Stripe: `Stripe-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]`. */
function stripe(secret: string, headers: Headers, body: string, nowSeconds: number): SignedEvent {
  const header = one(headers, 'stripe-signature');
  const parts = (header ?? '').split(',').map((part) => part.trim().split('='));
  const timestamp = parts.find(([key]) => key === 't')?.[1];
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  if (!timestamp || !/^\d{1,15}$/.test(timestamp) || signatures.length === 0) throw validationError([{ field: 'Stripe-Signature', message: 'must be t=<timestamp>,v1=<signature>' }]);
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) throw unauthorized('The Stripe-Signature timestamp is outside the 300 s tolerance');
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  if (!signatures.some((candidate) => sameText(candidate, expected))) throw unauthorized('No signature matches');
  const payload = parseEvent('stripe', body);
  const object = (payload.data as { object?: Record<string, unknown> & { metadata?: Record<string, unknown> } } | undefined)?.object;
  const orderId = object?.metadata?.order_id;
  const type = typeof payload.type === 'string' ? payload.type : '';
  const status = object?.payment_status;
  const unpaid = type === 'checkout.session.completed' && typeof status === 'string' && status !== 'paid' ? status.slice(0, 40) : undefined;
  return { id: String(payload.id), type, orderId: typeof orderId === 'string' ? orderId : undefined, payment: stripePayment(type, object), ...(unpaid ? { unpaid } : {}) };
}

/**
 * The money of a Stripe payment event: `amount_received` of a PaymentIntent or `amount_total`
 * of a Checkout Session, in the currency's minor units, with its lower-case `currency`.
 */
function stripePayment(type: string, object: Record<string, unknown> | undefined): Payment {
  const minor = type.startsWith('checkout.session.') ? object?.amount_total : object?.amount_received;
  const currency = typeof object?.currency === 'string' ? object.currency.toUpperCase() : undefined;
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor) || minor < 0 || currency === undefined || !isCurrency(currency)) return { amount: undefined, currency };
  const iso = isoMinor(BigInt(minor), currency);
  return { amount: iso === undefined ? undefined : fromMinor(iso, currency), currency };
}

/**
 * Where Stripe's smallest unit is not ISO 4217's (Stripe's currency docs, "special cases"):
 * it counts ISK in hundredths (amounts divisible by 100) and MGA in whole ariary. The power
 * of ten from Stripe's unit to ISO's.
 */
const stripeUnitShift: Readonly<Record<string, number>> = { ISK: 2, MGA: -2 };

/** Stripe's minor amount in ISO minor units, or undefined when it names no exact amount. */
function isoMinor(minor: bigint, currency: string): bigint | undefined {
  const shift = stripeUnitShift[currency] ?? 0;
  if (shift <= 0) return minor * 10n ** BigInt(-shift);
  const unit = 10n ** BigInt(shift);
  return minor % unit === 0n ? minor / unit : undefined;
}

/** The try-lock a delivery of an event holds while its transaction runs: a repeat meanwhile is a 409. */
export function receivedLockKey(webhookId: string, eventId: string): string {
  return `webhook-received:${webhookId}:${eventId}`;
}

/** Event types that pay for an order, per scheme (docs/selling.md "Payment"). */
const paymentTypes: Readonly<Record<string, ReadonlySet<string>>> = {
  stripe: new Set(['payment_intent.succeeded', 'checkout.session.completed', 'checkout.session.async_payment_succeeded']),
  'standard-webhooks': new Set(['orders.paid']),
};

/**
 * Incoming webhooks: the signature over the exact body is the authentication (constant-time
 * compare, 300 s tolerance), the source address must be in the webhook's allowlist, and an
 * event id is processed once — the first delivery claims it with one atomic insert; a
 * repeat while it runs is a 409, with another body a 422, after it a 200 with no effect.
 * Payment events settle the webhook's tenant's order (the money compared exactly, docs/selling.md
 * "Payment"), audited with the webhook as actor.
 * The claim, the effect with its audit entry and the `done` mark are one transaction
 * (no compensation): a failure anywhere leaves none of them, and the sender's retry
 * starts afresh. A repeat that arrives while that transaction runs is told so by a
 * transaction-level try-lock on the event id (PostgreSQL; SQLite serialises writers).
 */
export class IncomingWebhooks {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly dataKey: DataKey,
    private readonly tenants: TenantDirectory,
  ) {}

  async receive(id: string, rawBody: string | undefined, headers: Headers, ip: string): Promise<{ received: true; event_id: string; outcome: string; duplicate?: true }> {
    const system = new ScopedQueries(this.database.db, this.database.dialect, asSystem());
    const hook = await system.find(webhooks, id);
    const { dialect } = this.database;
    if (!hook || hook.direction !== 'incoming' || dialect.fromDb('boolean', hook.active) !== true) throw notFound('webhooks');
    if (!new IpAllowlist((dialect.fromDb('string_list', hook.ip_allowlist) as string[]) ?? []).allows(ip))
      throw new ApiError('ip_not_allowed', 'Deliveries to this webhook are not allowed from this address');
    const stored = await this.database.db.selectFrom('webhook_secrets').select('secret').where('webhook_id', '=', id).executeTakeFirst();
    if (!stored || !rawBody) throw validationError([{ field: 'body', message: 'a JSON body is required' }]);
    const secret = this.dataKey.decrypt(stored.secret);
    const now = this.clock.now();
    const event = hook.scheme === 'stripe' ? stripe(secret, headers, rawBody, Math.floor(now / 1000)) : standardWebhooks(secret, headers, rawBody, Math.floor(now / 1000));
    const fingerprint = createHash('sha256').update(rawBody).digest('base64url');
    // Resolved before the transaction: SQLite has one connection, and the transaction holds it.
    const scope = await this.tenants.resolve((hook.tenant_id as string | null) ?? null);
    const principal: Principal = Object.freeze({
      actorType: 'webhook',
      actorId: id,
      capabilities: new Set(['orders:update']),
      home: scope ?? systemScope,
      scope: scope ?? systemScope,
      unrestricted: false,
    });
    // Claim, effect (with its audit entry) and `done` commit together or not at all: a
    // failed effect leaves no claim behind, so the sender's retry runs it afresh.
    return runUnitOfWork(this.database, this.clock, { principal, clientIp: ip || null, requestId: null }, async (unit) => {
      if (!(await unit.dialect.tryTransactionLock(unit.trx, receivedLockKey(id, event.id)))) throw stillProcessing();
      const claimed = await unit.trx
        .insertInto('webhook_received')
        .values({ webhook_id: id, event_id: event.id, fingerprint, state: 'processing', type: event.type, outcome: null, detail: null, received_at: unit.now })
        .onConflict((conflict) => conflict.columns(['webhook_id', 'event_id']).doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) {
        const seen = await unit.trx.selectFrom('webhook_received').selectAll().where('webhook_id', '=', id).where('event_id', '=', event.id).executeTakeFirstOrThrow();
        if (seen.fingerprint !== fingerprint) throw new ApiError('event_id_reused', 'The sender sent this event id before with another body; a new event needs a new id');
        if (seen.state === 'done') return { received: true, event_id: event.id, outcome: String(seen.outcome), duplicate: true };
        if (!(await this.takeOver(unit, id, event.id, seen.received_at))) throw stillProcessing();
      }
      const outcome = scope ? await this.apply(unit, hook, event) : { outcome: 'failed', detail: "the webhook's tenant no longer exists" };
      await unit.trx
        .updateTable('webhook_received')
        .set({ state: 'done', ...outcome })
        .where('webhook_id', '=', id)
        .where('event_id', '=', event.id)
        .execute();
      return { received: true, event_id: event.id, outcome: outcome.outcome };
    });
  }

  /**
   * A row still `processing` was committed by an instance of an earlier version, which
   * claimed in one transaction and finished in another, and died in between (kill -9).
   * Past {@link staleClaimMs} the next delivery takes it over, atomically, so one sender
   * retry wins; re-applying is safe (an order already confirmed is `ignored`). This
   * version never commits a `processing` row: its claim and `done` share one transaction.
   */
  private async takeOver(unit: UnitOfWork, webhookId: string, eventId: string, claimedAt: unknown): Promise<boolean> {
    if (unit.now - Number(claimedAt) < staleClaimMs) return false;
    const taken = await unit.trx
      .updateTable('webhook_received')
      .set({ received_at: unit.now })
      .where('webhook_id', '=', webhookId)
      .where('event_id', '=', eventId)
      .where('state', '=', 'processing')
      .where('received_at', '=', claimedAt as number)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }

  /** What the event does: a payment settles the order (docs/selling.md "Payment", in the same transaction); anything else is recorded and ignored. */
  private async apply(unit: UnitOfWork, hook: Record<string, unknown>, event: SignedEvent): Promise<{ outcome: string; detail: string | null }> {
    if (!paymentTypes[String(hook.scheme)]?.has(event.type)) return { outcome: 'ignored', detail: `no effect for ${event.type.slice(0, 80)}` };
    if (!event.orderId) return { outcome: 'failed', detail: 'the event names no order (metadata.order_id / data.order_id)' };
    // A Checkout Session completed with a delayed payment method is not paid yet: its
    // `checkout.session.async_payment_succeeded` pays the order later.
    if (event.unpaid) return { outcome: 'ignored', detail: `the checkout session is not paid yet (payment_status ${event.unpaid})` };
    const orderId = event.orderId;
    const order = await unit.find(orders, orderId, { lock: 'update' });
    if (!order) return { outcome: 'failed', detail: `no order ${orderId.slice(0, 60)} in this webhook's tenant` };
    return settleOrder(unit, order, event.payment);
  }

  /** The events a webhook received, newest first (tenant-scoped like the webhook). */
  async received(context: RequestContext, id: string, page: number, perPage: number) {
    const hook = await new ScopedQueries(this.database.db, this.database.dialect, context.principal).find(webhooks, id);
    if (!hook) throw notFound('webhooks');
    const base = this.database.db.selectFrom('webhook_received').where('webhook_id', '=', id);
    const rows = await base
      .selectAll()
      .orderBy('received_at', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute();
    const total = Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const items = rows.map((row) => ({ _id: row.event_id, type: row.type, received_at: new Date(Number(row.received_at)).toISOString(), outcome: row.outcome ?? 'processing', detail: row.detail }));
    return { items, total, page, per_page: perPage };
  }
}
