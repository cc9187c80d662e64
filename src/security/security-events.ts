import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import type { Principal } from '../core/principal.js';
import { asSystem } from '../core/principal.js';
import { appendAuditBatch } from '../data/audit-trail.js';
import type { AuditEvent } from '../data/audit-trail.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import type { RequestContext } from '../core/request-context.js';
import type { Clock } from '../core/clock.js';

/** Security events of API clients (token endpoint, security pipeline). */
export type ClientEventName = 'token_issued' | 'token_refused' | 'replay_detected' | 'capability_denied' | 'ip_refused';

/**
 * Security events of end users (sign-in, `docs/end-users.md`): a token issued (`sign_in`),
 * a code refused (`sign_in_failed`), a challenge dead after its last allowed try
 * (`sign_in_locked`), a code not sent (`otp_refused`: resend cooldown or daily cap) or issued (`otp_issued`), the
 * first factor passed with TOTP still to come (`mfa_challenge`), TOTP enrolment, activation
 * and removal, a refused TOTP code outside sign-in (`totp_failed`), TOTP locked after 5 or
 * more refused codes in a row (`totp_locked`), a recovery code spent,
 * and the RFC 9470 step-up refusal (`step_up_required`).
 */
export const userEventNames = [
  'sign_in',
  'sign_in_failed',
  'sign_in_locked',
  'otp_refused',
  'otp_issued',
  'mfa_challenge',
  'totp_enrolled',
  'totp_activated',
  'totp_failed',
  'totp_locked',
  'totp_disabled',
  'recovery_code_used',
  'step_up_required',
] as const;

export type UserEventName = (typeof userEventNames)[number];

/** Security events recorded in the audit trail under the `security` category. */
export type SecurityEventName = ClientEventName | UserEventName;

export interface SecurityEvent {
  readonly name: SecurityEventName;
  /** The client concerned, when known (also the actor of client-side events). */
  readonly clientId: string | null;
  readonly tenantId: string | null;
  readonly clientIp: string | null;
  readonly requestId: string | null;
  /** Event details; for refusals the private reason, which clients never see. Never a code, secret or token. */
  readonly details: Readonly<Record<string, unknown>>;
  /**
   * Set for end-user events: the entry is about `users` record `userId` (and the user is its
   * actor); `null` when no user is known (an unknown challenge or destination).
   */
  readonly userId?: string | null;
}

/** An end user's security event; `userId` null when the attempt matched no user. */
export function userEvent(
  name: UserEventName,
  request: { readonly clientIp: string | null; readonly requestId: string | null },
  subject: { readonly userId: string | null; readonly tenantId: string | null },
  details: Readonly<Record<string, unknown>> = {},
): SecurityEvent {
  return { name, clientId: null, userId: subject.userId, tenantId: subject.tenantId, clientIp: request.clientIp, requestId: request.requestId, details };
}

function actor(event: SecurityEvent): Principal {
  const system = asSystem();
  if (event.userId) return { ...system, actorType: 'user', actorId: event.userId, unrestricted: false };
  return event.clientId ? { ...system, actorType: 'client', actorId: event.clientId, unrestricted: false } : system;
}

/** The audit entry of a security event, and the context it is written under (its actor, address and request). */
export function securityEntry(event: SecurityEvent): { readonly context: RequestContext; readonly event: AuditEvent } {
  return {
    context: { principal: actor(event), clientIp: event.clientIp, requestId: event.requestId },
    event: {
      category: 'security',
      action: event.name,
      ...(event.userId === undefined ? { resource: 'api-clients', recordId: event.clientId } : { resource: 'users', recordId: event.userId }),
      tenantId: event.tenantId,
      oldValues: null,
      newValues: event.details,
    },
  };
}

/**
 * Records the security event of a state change (a TOTP enrolment, a challenge issued or
 * spent, a sign-in) in that change's own unit of work: both commit or neither does, so
 * auditing fails closed — an entry that cannot be written rolls the change back and the
 * request fails. Refusals, which change nothing, go through {@link SecurityEvents.record}.
 */
export function auditInUnit(unit: UnitOfWork, event: SecurityEvent): Promise<string> {
  const entry = securityEntry(event);
  return unit.audit(entry.event, entry.context);
}

interface Batch {
  readonly items: { event: SecurityEvent; at: number }[];
  readonly written: Promise<void>;
  resolve(): void;
}

function newBatch(): Batch {
  let resolve = () => undefined as void;
  const written = new Promise<void>((done) => {
    resolve = done;
  });
  return { items: [], written, resolve };
}

/**
 * Writes the security events that come with no state change — refusals (a token or
 * capability refused, a replay, a failed verification) and client token issuance — to the
 * audit trail with group commit (a state change's event goes in its own transaction
 * instead: {@link auditInUnit}). A write starts at the end of the current event-loop turn (`setImmediate`), so every event recorded in that turn
 * shares it; events arriving while a write is in flight form the next batch (one
 * transaction, one multi-row INSERT per 200 events). On SQLite a write finishes within
 * the turn it starts in, so without the wait nearly every token paid a commit of its own, a
 * large share of the main thread under token load. {@link record} resolves once its event is
 * committed, and callers answer the request only then — so an answered request's event
 * survives a crash, and under load many requests share one write. A failed write is
 * logged, never turned into a failure of the request it describes: a refusal stands
 * whether or not its entry could be written (docs/audit.md).
 */
export class SecurityEvents {
  private collecting: Batch | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Queues an event; resolves when it is committed (or its write failed and was logged). */
  record(event: SecurityEvent): Promise<void> {
    const batch = (this.collecting ??= newBatch());
    batch.items.push({ event, at: this.clock.now() });
    if (!this.inFlight) this.inFlight = new Promise<void>((turnEnded) => setImmediate(turnEnded)).then(() => this.writeNext());
    return batch.written;
  }

  /** Resolves when every event recorded so far is committed. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** Writes the collected batch, then the one collected meanwhile, until none is left. */
  private async writeNext(): Promise<void> {
    for (let batch = this.collecting; batch; batch = this.collecting) {
      this.collecting = undefined;
      await this.write(batch.items);
      batch.resolve();
    }
    this.inFlight = undefined;
  }

  private async write(batch: readonly { event: SecurityEvent; at: number }[]): Promise<void> {
    try {
      const entries = batch.map(({ event, at }) => ({ ...securityEntry(event), at }));
      await this.database.db.transaction().execute((trx) => appendAuditBatch(trx, this.database.dialect, entries));
    } catch (error) {
      this.log.error({ err: error, events: batch.length }, 'could not record security events');
    }
  }
}
