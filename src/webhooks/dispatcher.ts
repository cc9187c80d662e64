import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { newRecordId } from '../lib/record-id.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import { asSystem } from '../core/principal.js';
import type { Clock } from '../core/clock.js';
import type { AddressGuard } from '../lib/address-guard.js';
import { withSpan } from '../observability/tracing.js';
import { postWebhook } from './deliver.js';
import { signatureHeader } from './signature.js';
import { fanOutBatch, OutboxFanOut } from './fan-out.js';

const webhooks = getResource('webhooks');

/** How often an instance looks for work: short, so an idle queue delivers within ~0.1 s. */
export const defaultPollMs = 100;
/** Attempts one instance has under way at once. */
export const maxInFlight = 128;
/**
 * Attempts one instance has under way to one webhook: half the slots, so a dead receiver
 * with a backlog (each attempt held until the timeout) leaves the other half to the other
 * webhooks, while one busy webhook keeps as many attempts under way as all of them had
 * before (64: delivery throughput scales with it while writers hold the database).
 */
export const maxInFlightPerWebhook = 64;
/** Room beyond the attempt itself for its database reads and writes before a claim lapses. */
const leaseMarginMs = 5000;

export interface DispatcherOptions {
  readonly database: Database;
  readonly clock: Clock;
  readonly dataKey: DataKey;
  readonly guard: AddressGuard;
  readonly timeoutMs: number;
  /** Seconds before each retry. */
  readonly retrySchedule: readonly number[];
  readonly log: FastifyBaseLogger;
  /** Counts attempts by outcome (metrics). */
  readonly onAttempt?: (outcome: 'succeeded' | 'retrying' | 'failed' | 'disabled') => void;
}

/** A claimed delivery, as the attempt needs it. */
interface Delivery {
  readonly _id: string;
  readonly tenant_id: string | null;
  readonly webhook_id: string;
  readonly payload: string;
  readonly attempts: number;
  /** The claim of an earlier attempt whose lease lapsed without an answer recorded; else null. */
  readonly claimed_at: unknown;
}

/** A delivery this instance claimed, with the `claimed_at` stamp its claim wrote. */
interface ClaimedDelivery extends Delivery {
  readonly claim: unknown;
}

/** What an abandoned attempt's row says went wrong. */
export const abandonedAttemptError = 'abandoned: the instance sending it stopped before recording an answer';

/** What one sent attempt brought back, for its row in `webhook_delivery_attempts`. */
interface AttemptOutcome {
  /** 1 for the delivery's first attempt. */
  readonly number: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly statusCode: number | null;
  readonly error: string | null;
}

/**
 * Turns the transactional outbox into webhook deliveries ({@link OutboxFanOut}) and sends
 * them. Every instance runs one; work is claimed, never shared: on PostgreSQL outbox rows
 * are taken with `FOR UPDATE SKIP LOCKED`, on SQLite the single writer serialises the
 * claims; a delivery attempt is claimed by moving its `next_attempt_at` past a lease (twice
 * the attempt's timeout plus {@link leaseMarginMs}), so no two instances send the same
 * attempt, and one claimed by an instance that died (kill -9) is sent again once the lease
 * lapses. The claim also stamps `claimed_at`, cleared when the outcome is recorded: a claim
 * found still set is an abandoned attempt, recorded as such before the next one (it may
 * have reached the receiver, so it counts towards the retry schedule and shows among the
 * attempts).
 *
 * Attempts run beside the polling, at most {@link maxInFlight} at once and at most
 * {@link maxInFlightPerWebhook} of them to one webhook: a slow receiver holds its own
 * attempts for up to the timeout, never the queue behind it nor the other webhooks.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts under way per webhook id (entries removed at zero). */
  private readonly inFlightByWebhook = new Map<string, number>();

  private readonly fanOut: OutboxFanOut;

  constructor(private readonly options: DispatcherOptions) {
    this.fanOut = new OutboxFanOut(options.database, options.clock);
  }

  /**
   * Polls every `intervalMs` until {@link stop}; a poll that found a full batch goes on at
   * once. An idle poll is two indexed reads (any pending outbox event? any due attempt?),
   * cheap enough for the short default that keeps commit-to-delivery latency low.
   */
  start(intervalMs = defaultPollMs): void {
    // After a failure (database down) polls pause, doubling up to 30 s, so an outage is a
    // few log lines rather than ten a second.
    let backoffMs = 0;
    let pausedUntil = 0;
    const tick = () => {
      if (this.running || Date.now() < pausedUntil) return;
      this.running = (async () => {
        while (this.timer && (await this.poll()));
        backoffMs = 0;
      })()
        .catch((error: unknown) => {
          backoffMs = Math.min(30_000, Math.max(1000, backoffMs * 2));
          pausedUntil = Date.now() + backoffMs;
          this.options.log.error({ err: error, retryInMs: backoffMs }, 'webhook dispatch failed');
        })
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /** Stops polling and waits for the attempts under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await Promise.all(this.inFlight);
  }

  /**
   * One round: fan every pending outbox event out, then start the due attempts there is
   * room for (as one poll would: {@link maxInFlight}, {@link maxInFlightPerWebhook} per
   * webhook) and wait for them.
   */
  async runOnce(): Promise<void> {
    while ((await this.fanOut.run()) > 0);
    await this.startDue();
    await Promise.all(this.inFlight);
  }

  /** One batch of fan-out, then every due attempt there is room for; true when more may be waiting. */
  private async poll(): Promise<boolean> {
    const fanned = await this.fanOut.run();
    const more = await this.startDue();
    return fanned === fanOutBatch || more;
  }

  /** A `ping` delivery to one webhook, due at once, for the caller to insert (see {@link OutboxFanOut.pingDelivery}). */
  pingDelivery(hook: { _id: string; tenant_id: string | null }, now: number): ReturnType<OutboxFanOut['pingDelivery']> {
    return this.fanOut.pingDelivery(hook, now);
  }

  /** A time as the dialect stores timestamps (the deliveries list filters on them). */
  private timestamp(ms: number): unknown {
    return this.options.database.dialect.toDb('timestamp', new Date(ms).toISOString());
  }

  /**
   * Claims every due attempt there is room for, with one update that only takes rows still
   * due (on PostgreSQL a concurrent claim makes the row no longer match), and starts them,
   * each tracked in {@link inFlight}. True when the room was filled (more may be due).
   */
  private async startDue(): Promise<boolean> {
    const { database, clock } = this.options;
    const room = maxInFlight - this.inFlight.size;
    if (room <= 0) return false;
    const now = clock.now();
    const saturated = [...this.inFlightByWebhook].filter(([, count]) => count >= maxInFlightPerWebhook).map(([id]) => id);
    let dueQuery = database.db.selectFrom('webhook_deliveries').selectAll().where('status', '=', 'pending').where('next_attempt_at', '<=', this.timestamp(now));
    if (saturated.length > 0) dueQuery = dueQuery.where('webhook_id', 'not in', saturated);
    const due = await dueQuery.orderBy('next_attempt_at').limit(room).execute();
    // Each webhook's remaining share of this batch; the rest stays due for a later poll.
    const taken = new Map<string, number>();
    const wanted = due.filter((delivery) => {
      const count = (this.inFlightByWebhook.get(delivery.webhook_id) ?? 0) + (taken.get(delivery.webhook_id) ?? 0);
      if (count >= maxInFlightPerWebhook) return false;
      taken.set(delivery.webhook_id, (taken.get(delivery.webhook_id) ?? 0) + 1);
      return true;
    });
    if (wanted.length === 0) return false;
    const claim = this.timestamp(now);
    const claimed = await database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: this.timestamp(now + 2 * this.options.timeoutMs + leaseMarginMs), claimed_at: claim })
      .where(
        '_id',
        'in',
        wanted.map((delivery) => delivery._id),
      )
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', this.timestamp(now))
      .returning('_id')
      .execute();
    const mine = new Set(claimed.map((row) => row._id));
    const attempts = wanted.filter((delivery) => mine.has(delivery._id)).map((delivery) => ({ ...delivery, claim }));
    if (attempts.length === 0) return false;
    // The webhooks and secrets of the whole batch in two reads.
    const hookIds = [...new Set(attempts.map((delivery) => delivery.webhook_id))];
    const hooks = new Map((await new ScopedQueries(database.db, database.dialect, asSystem()).scoped(webhooks).selectAll().where('_id', 'in', hookIds).execute()).map((row) => [String(row._id), row]));
    const secrets = new Map((await database.db.selectFrom('webhook_secrets').selectAll().where('webhook_id', 'in', hookIds).execute()).map((row) => [row.webhook_id, row]));
    for (const delivery of attempts) {
      const hookId = delivery.webhook_id;
      this.inFlightByWebhook.set(hookId, (this.inFlightByWebhook.get(hookId) ?? 0) + 1);
      const running: Promise<void> = this.attempt(delivery, hooks.get(hookId), secrets.get(hookId))
        .catch((error: unknown) => this.options.log.error({ err: error, delivery: delivery._id }, 'webhook attempt failed'))
        .finally(() => {
          this.inFlight.delete(running);
          const left = (this.inFlightByWebhook.get(hookId) ?? 1) - 1;
          if (left > 0) this.inFlightByWebhook.set(hookId, left);
          else this.inFlightByWebhook.delete(hookId);
        });
      this.inFlight.add(running);
    }
    return due.length === room;
  }

  private async attempt(
    claimed: ClaimedDelivery,
    hook: Readonly<Record<string, unknown>> | undefined,
    secrets: { secret: string; previous: string | null; previous_until: unknown } | undefined,
  ): Promise<void> {
    const { database, clock, dataKey } = this.options;
    const now = clock.now();
    const delivery = claimed.claimed_at === null || claimed.claimed_at === undefined ? claimed : await this.recordAbandoned(claimed, now);
    if (!delivery) return;
    if (!hook || !secrets || database.dialect.fromDb('boolean', hook.active) !== true) {
      await this.record(delivery, { status: 'failed', last_status_code: null, last_error: 'webhook deleted or inactive', next_attempt_at: null }, now);
      return;
    }
    const timestamp = Math.floor(now / 1000);
    const keys = [dataKey.decrypt(secrets.secret)];
    if (secrets.previous && Number(secrets.previous_until) > now) keys.push(dataKey.decrypt(secrets.previous));
    // Its own trace (the event's request has long finished, maybe on another instance); the receiver gets its traceparent.
    const result = await withSpan(
      'webhook delivery',
      'client',
      { 'booking.webhook_id': delivery.webhook_id, 'booking.delivery_id': delivery._id, 'booking.attempt': delivery.attempts + 1 },
      async (span) => {
        const answer = await postWebhook(
          String(hook.url),
          { ...span.traceHeaders(), 'webhook-id': delivery._id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(keys, delivery._id, timestamp, delivery.payload) },
          delivery.payload,
          { guard: this.options.guard, timeoutMs: this.options.timeoutMs },
        );
        if (answer.status !== null) span.setAttribute('http.response.status_code', answer.status);
        return answer;
      },
    );
    const finished = clock.now();
    const attempts = delivery.attempts + 1;
    const detail = result.detail.slice(0, 1024);
    const attempt = { number: attempts, startedAt: now, finishedAt: finished, statusCode: result.status };
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      await this.record(delivery, { status: 'succeeded', attempts, last_status_code: result.status, last_error: null, next_attempt_at: null }, finished, { ...attempt, error: null });
      this.options.onAttempt?.('succeeded');
      return;
    }
    if (result.status === 410) {
      const gone = 'receiver answered 410 Gone: webhook disabled';
      await this.record(delivery, { status: 'failed', attempts, last_status_code: 410, last_error: gone, next_attempt_at: null }, finished, { ...attempt, error: gone }, { disable: true });
      this.options.onAttempt?.('disabled');
      return;
    }
    const wait = this.options.retrySchedule[attempts - 1];
    const error = (result.status === null ? detail : `HTTP ${result.status}${detail ? `: ${detail}` : ''}`).slice(0, 1024);
    if (wait === undefined) {
      await this.record(delivery, { status: 'failed', attempts, last_status_code: result.status, last_error: error, next_attempt_at: null }, finished, { ...attempt, error });
      this.options.onAttempt?.('failed');
    } else {
      await this.record(delivery, { status: 'pending', attempts, last_status_code: result.status, last_error: error, next_attempt_at: this.timestamp(finished + wait * 1000) }, finished, {
        ...attempt,
        error,
      });
      this.options.onAttempt?.('retrying');
    }
  }

  /**
   * Records the attempt an earlier claim left without an answer (its instance stopped) as
   * failed, with no status code, from its claim until now, in its own transaction: should
   * this instance stop too, the next claim numbers its attempt after both. Answers the
   * delivery as the next attempt sees it, or undefined when that was the last attempt the
   * retry schedule allows (the delivery is then `failed`).
   */
  private async recordAbandoned(delivery: ClaimedDelivery, now: number): Promise<ClaimedDelivery | undefined> {
    const attempts = delivery.attempts + 1;
    const claimedAt = Date.parse(String(this.options.database.dialect.fromDb('timestamp', delivery.claimed_at)));
    const row = { number: attempts, startedAt: Number.isNaN(claimedAt) ? now : Math.min(claimedAt, now), finishedAt: now, statusCode: null, error: abandonedAttemptError };
    const summary = { attempts, last_status_code: null, last_error: abandonedAttemptError };
    this.options.log.warn({ delivery: delivery._id, attempt: attempts }, 'webhook attempt abandoned by a stopped instance');
    if (this.options.retrySchedule[attempts - 1] === undefined) {
      if (await this.record(delivery, { ...summary, status: 'failed', next_attempt_at: null }, now, row)) this.options.onAttempt?.('failed');
      return undefined;
    }
    // Still claimed by this instance: its own attempt follows at once (the lapsed lease was the wait).
    if (!(await this.record(delivery, { ...summary, claimed_at: delivery.claim }, now, row))) return undefined;
    this.options.onAttempt?.('retrying');
    return { ...delivery, attempts };
  }

  /**
   * Records an outcome on the delivery (its summary: `attempts`, `last_status_code`,
   * `last_error`) and, for an attempt that was sent, its own row in
   * `webhook_delivery_attempts` — in one transaction, so the summary and the attempts never
   * disagree. A 410 disables the webhook in that same transaction (audited as the system).
   * The claim ends with it (`claimed_at` cleared) unless `changes` says otherwise.
   *
   * Only while the claim is still this instance's: an instance that stalled past its lease
   * (the database unreachable) finds the delivery taken over, its attempt already recorded
   * as abandoned by the instance that took it, and records nothing (false).
   */
  private async record(delivery: ClaimedDelivery, changes: Record<string, unknown>, now: number, attempt?: AttemptOutcome, options: { disable?: boolean } = {}): Promise<boolean> {
    return runUnitOfWork(this.options.database, this.options.clock, { principal: asSystem(), clientIp: null, requestId: null }, async (unit) => {
      const updated = await unit.trx
        .updateTable('webhook_deliveries')
        .set({ claimed_at: null, ...changes, updated_at: this.timestamp(now) })
        .where('_id', '=', delivery._id)
        .where('claimed_at', '=', delivery.claim)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) {
        this.options.log.warn({ delivery: delivery._id }, 'webhook attempt not recorded: another instance took the delivery over');
        return false;
      }
      if (attempt) {
        await unit.trx
          .insertInto('webhook_delivery_attempts')
          .values({
            _id: newRecordId(attempt.startedAt),
            tenant_id: delivery.tenant_id,
            webhook_id: delivery.webhook_id,
            delivery_id: delivery._id,
            attempt: attempt.number,
            status_code: attempt.statusCode,
            error: attempt.error,
            started_at: this.timestamp(attempt.startedAt),
            finished_at: this.timestamp(attempt.finishedAt),
            duration_ms: Math.max(0, attempt.finishedAt - attempt.startedAt),
            created_at: this.timestamp(attempt.startedAt),
            updated_at: this.timestamp(attempt.finishedAt),
          })
          .execute();
      }
      if (options.disable) {
        const row = await unit.find(webhooks, delivery.webhook_id, { lock: 'update' });
        if (row && unit.dialect.fromDb('boolean', row.active) === true) await unit.update(webhooks, row, String(row.etag), { active: false });
      }
      return true;
    });
  }
}
