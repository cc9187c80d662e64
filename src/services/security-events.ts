import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import type { Principal } from '../security/principal.js';
import { asSystem } from '../security/principal.js';
import { appendAudit } from './audit-trail.js';
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
 * Writes security events to the audit trail, each in its own small transaction. A failure
 * to record is logged, never turned into a failure of the request being refused or served.
 */
export class SecurityEvents {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
  ) {}

  async record(event: SecurityEvent): Promise<void> {
    try {
      await this.database.db.transaction().execute((trx) =>
        appendAudit(trx, this.database.dialect, { principal: actor(event.clientId), clientIp: event.clientIp, requestId: event.requestId }, {
          category: 'security',
          action: event.name,
          resource: 'api-clients',
          recordId: event.clientId,
          tenantId: event.tenantId,
          oldValues: null,
          newValues: event.details,
        }, this.clock.now()),
      );
    } catch (error) {
      this.log.error({ err: error, event: event.name }, 'could not record security event');
    }
  }
}
