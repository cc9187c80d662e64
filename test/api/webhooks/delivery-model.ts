/**
 * A brute-force model of outgoing webhook delivery, written from docs/webhooks.md ("Answers
 * and retries", "Attempts", "Operations") without the dispatcher's code: committed changes
 * wait in the outbox until a dispatcher round fans them out to the webhooks active then;
 * each round sends every pending delivery that is due at its time, once; a 2xx succeeds,
 * 410 fails the delivery and disables its webhook, anything else (3xx included) waits the
 * next `WEBHOOK_RETRY_SCHEDULE` step or, after the last one, fails; a manual retry makes a
 * delivery due now, whatever its status; a delivery of an inactive or deleted webhook fails
 * unsent. Time is the service's injected clock, which stands still during a round.
 */

/** What the scripted receiver answers one request: an HTTP status, or a connection dropped unanswered. */
export type Answer = number | 'hangup';

/** The body the receiver sends with a status (none with 204, which has no content). */
export const answerBody = (status: number): string => (status === 204 ? '' : `answer ${status}`);

/** `last_error` and the attempt's `error`, as docs/webhooks.md words them. */
export const errors = {
  inactive: 'webhook deleted or inactive',
  gone: 'receiver answered 410 Gone: webhook disabled',
  /** What Node's client reports for a connection closed before any answer. */
  hangup: 'ECONNRESET: socket hang up',
} as const;

/** `error` of an attempt answered with `answer`: null on success. */
export function attemptError(answer: Answer): string | null {
  if (answer === 'hangup') return errors.hangup;
  if (answer >= 200 && answer < 300) return null;
  if (answer === 410) return errors.gone;
  const body = answerBody(answer);
  return `HTTP ${answer}${body ? `: ${body}` : ''}`;
}

export interface ModelHook {
  readonly name: string;
  readonly path: string;
  readonly events: readonly string[];
  active: boolean;
  deleted: boolean;
}

/** One attempt as its row shows it; the clock stands still in a round, so it starts and finishes at `at`. */
export interface AttemptRow {
  readonly attempt: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly at: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface ModelDelivery {
  readonly hook: string;
  readonly type: string;
  /** The record's `name` the event carries (unique per write), or the webhook's id for a ping. */
  readonly marker: string;
  /** The delivery's id (its `webhook-id`): learnt from its first request at the receiver, or from the ping's answer. */
  id: string | undefined;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  readonly createdAt: number;
  updatedAt: number;
  readonly rows: AttemptRow[];
}

/** The dispatcher claims at most this many attempts per round, and this many per webhook: the model stays below both. */
export const roundLimits = { total: 128, perWebhook: 64 } as const;

export class DeliveryModel {
  readonly hooks = new Map<string, ModelHook>();
  readonly deliveries: ModelDelivery[] = [];
  /** Committed changes not yet fanned out. */
  private readonly outbox: { readonly type: string; readonly marker: string }[] = [];
  /**
   * What each path answers a request for which no answer is queued: the n-th request of a
   * delivery gets entry n of the path's pattern, round and round (204 until set).
   */
  private readonly patterns = new Map<string, readonly Answer[]>();
  /** Answers queued for one delivery (by id), one used per request. */
  private readonly queued = new Map<string, Answer[]>();

  /** `schedule`: the seconds of `WEBHOOK_RETRY_SCHEDULE`. */
  constructor(readonly schedule: readonly number[]) {}

  addHook(name: string, path: string, events: readonly string[]): void {
    this.hooks.set(name, { name, path, events, active: true, deleted: false });
  }

  hook(name: string): ModelHook {
    const hook = this.hooks.get(name);
    if (!hook) throw new Error(`the model has no webhook ${name}`);
    return hook;
  }

  /** A committed change that fires `type`: one outbox event. */
  write(type: string, marker: string): void {
    this.outbox.push({ type, marker });
  }

  /** `POST /v1/webhooks/{id}/test` at `at`: a ping delivery, due at once, whether or not the webhook is active. */
  ping(hook: string, id: string, marker: string, at: number): ModelDelivery {
    const delivery = this.newDelivery(hook, 'ping', marker, at);
    delivery.id = id;
    this.deliveries.push(delivery);
    return delivery;
  }

  /** `POST …/deliveries/{id}/retry` at `at`: due now, pending again, whatever its status. */
  retry(delivery: ModelDelivery, at: number): void {
    delivery.status = 'pending';
    delivery.nextAttemptAt = at;
    delivery.updatedAt = at;
  }

  setPattern(path: string, answers: readonly Answer[]): void {
    this.patterns.set(path, answers);
  }

  queue(id: string, answers: readonly Answer[]): void {
    this.queued.set(id, [...(this.queued.get(id) ?? []), ...answers]);
  }

  pending(): ModelDelivery[] {
    return this.deliveries.filter((d) => d.status === 'pending');
  }

  /** The most deliveries the next round may find due: those pending, and those the outbox may still fan out. */
  backlog(): number {
    const subscribers = (type: string) => [...this.hooks.values()].filter((hook) => !hook.deleted && hook.events.includes(type)).length;
    return this.pending().length + this.outbox.reduce((sum, event) => sum + subscribers(event.type), 0);
  }

  /**
   * One dispatcher round at `at`: fans every outbox event out to the webhooks active now
   * that subscribe to it, then sends every pending delivery due by `at` once, and records
   * each outcome. Answers the deliveries the round sent or failed.
   */
  run(at: number): ModelDelivery[] {
    for (const event of this.outbox.splice(0)) {
      for (const hook of this.hooks.values()) {
        if (hook.active && !hook.deleted && hook.events.includes(event.type)) this.deliveries.push(this.newDelivery(hook.name, event.type, event.marker, at));
      }
    }
    const due = this.deliveries.filter((d) => d.status === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= at);
    if (due.length > roundLimits.total) throw new Error(`the model covers rounds of up to ${roundLimits.total} attempts, not ${due.length}`);
    for (const hook of this.hooks.keys()) {
      if (due.filter((d) => d.hook === hook).length > roundLimits.perWebhook) throw new Error(`the model covers up to ${roundLimits.perWebhook} attempts per webhook in a round`);
    }
    // Whether a webhook may be sent to is read once per round, before any answer (a 410 disables it after).
    const open = new Map([...this.hooks.values()].map((hook) => [hook.name, hook.active && !hook.deleted]));
    for (const delivery of due) {
      delivery.updatedAt = at;
      if (!open.get(delivery.hook)) {
        Object.assign(delivery, { status: 'failed', lastStatusCode: null, lastError: errors.inactive, nextAttemptAt: null });
        continue;
      }
      const answer = this.answerFor(delivery);
      const statusCode = answer === 'hangup' ? null : answer;
      const error = attemptError(answer);
      delivery.attempts += 1;
      delivery.rows.push({ attempt: delivery.attempts, statusCode, error, at });
      delivery.lastStatusCode = statusCode;
      delivery.lastError = error;
      if (error === null) {
        delivery.status = 'succeeded';
        delivery.nextAttemptAt = null;
      } else if (answer === 410) {
        delivery.status = 'failed';
        delivery.nextAttemptAt = null;
        this.hook(delivery.hook).active = false;
      } else {
        // The wait before attempt n + 1 is the schedule's n-th entry; none left: failed.
        const wait = this.schedule[delivery.attempts - 1];
        delivery.status = wait === undefined ? 'failed' : 'pending';
        delivery.nextAttemptAt = wait === undefined ? null : at + wait * 1000;
      }
    }
    return due;
  }

  private answerFor(delivery: ModelDelivery): Answer {
    const queued = delivery.id === undefined ? undefined : this.queued.get(delivery.id)?.shift();
    const pattern = this.patterns.get(this.hook(delivery.hook).path) ?? [];
    return queued ?? pattern[delivery.attempts % pattern.length] ?? 204;
  }

  private newDelivery(hook: string, type: string, marker: string, at: number): ModelDelivery {
    return { hook, type, marker, id: undefined, status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, nextAttemptAt: at, createdAt: at, updatedAt: at, rows: [] };
  }
}
