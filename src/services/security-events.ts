import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import type { Principal } from '../security/principal.js';
import { asSystem } from '../security/principal.js';
import { appendAuditBatch } from './audit-trail.js';
import type { Clock } from './clock.js';

/** Security events recorded in the audit trail under the `security` category. */
export type SecurityEventName = 'token_issued' | 'token_refused' | 'replay_detected' | 'capability_denied' | 'ip_refused';

export interface SecurityEvent {
  readonly name: SecurityEventName;
  /** The client concerned, when known (also the actor of client-side events). */
  readonly clientId: string | null;
  readonly tenantId: string | null;
  readonly clientIp: string | null;
  readonly requestId: string | null;
  /** Event details; for refusals the private reason, which clients never see. */
  readonly details: Readonly<Record<string, unknown>>;
}

function actor(clientId: string | null): Principal {
  const system = asSystem();
  return clientId ? { ...system, actorType: 'client', actorId: clientId, unrestricted: false } : system;
}

/**
 * Writes security events to the audit trail. Events are queued and written in one
 * transaction per batch (every `flushMs` or `maxBatch` events), with one multi-row INSERT
 * per 200 events, so a token issuance or a refusal never waits for an extra database write; `close()` flushes what is left. A
 * failed write is logged, never turned into a failure of the request it describes.
 */
export class SecurityEvents {
  private queue: { event: SecurityEvent; at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly options: { readonly flushMs: number; readonly maxBatch: number } = { flushMs: 200, maxBatch: 500 },
  ) {}

  record(event: SecurityEvent): void {
    this.queue.push({ event, at: this.clock.now() });
    if (this.queue.length >= this.options.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.flushMs);
      this.timer.unref();
    }
  }

  /** Writes every queued event; resolves when they are committed. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.flushing.then(() => (batch.length > 0 ? this.write(batch) : undefined));
    return this.flushing;
  }

  private async write(batch: readonly { event: SecurityEvent; at: number }[]): Promise<void> {
    try {
      const entries = batch.map(({ event, at }) => ({
        context: { principal: actor(event.clientId), clientIp: event.clientIp, requestId: event.requestId },
        event: { category: 'security', action: event.name, resource: 'api-clients', recordId: event.clientId, tenantId: event.tenantId, oldValues: null, newValues: event.details } as const,
        at,
      }));
      await this.database.db.transaction().execute((trx) => appendAuditBatch(trx, this.database.dialect, entries));
    } catch (error) {
      this.log.error({ err: error, events: batch.length }, 'could not record security events');
    }
  }
}
