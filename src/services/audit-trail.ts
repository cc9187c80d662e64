import { newRecordId } from '../lib/record-id.js';
import type { Db, SqlDialect } from '../db/dialect.js';
import { findResource, getResource } from '../registry/index.js';
import type { RequestContext } from './request-context.js';
import { recordToRow } from './record-codec.js';
import { nextEtag } from './etag.js';

export type AuditCategory = 'data' | 'security';

export interface AuditEvent {
  readonly category: AuditCategory;
  /** `create`, `update`, `delete`, a sub-operation or a security event name. */
  readonly action: string;
  readonly resource: string;
  readonly recordId: string | null;
  /** Tenant node the event belongs to (`null`: the system node). */
  readonly tenantId: string | null;
  readonly oldValues: Readonly<Record<string, unknown>> | null;
  readonly newValues: Readonly<Record<string, unknown>> | null;
}

const auditLogs = getResource('audit-logs');

/**
 * Appends an audit entry. Callers pass the transaction of the change itself, so the change
 * and its entry commit or roll back together.
 */
export async function appendAudit(trx: Db, dialect: SqlDialect, context: RequestContext, event: AuditEvent, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  const record = {
    _id: newRecordId(now),
    tenant_id: event.tenantId,
    created_at: at,
    updated_at: at,
    category: event.category,
    actor_type: context.principal.actorType,
    actor_id: context.principal.actorId,
    client_ip: context.clientIp,
    request_id: context.requestId,
    action: event.action,
    resource: event.resource,
    record_id: event.recordId,
    old_values: maskSpecial(event.resource, event.oldValues),
    new_values: maskSpecial(event.resource, event.newValues),
  };
  await trx
    .insertInto(auditLogs.table)
    .values({ ...recordToRow(auditLogs, dialect, record), etag: nextEtag(null, record) })
    .execute();
}

/**
 * Special-category values (GDPR Art. 9, e.g. birth dates) are not copied into the trail:
 * the entry records that the field changed, not its content. Secrets never reach here
 * (write-only fields such as public keys are not stored in records).
 */
function maskSpecial(resourceName: string, values: Readonly<Record<string, unknown>> | null): Readonly<Record<string, unknown>> | null {
  const resource = findResource(resourceName);
  if (!values || !resource) return values;
  const masked: Record<string, unknown> = { ...values };
  for (const key of Object.keys(masked)) {
    if (resource.fields[key]?.gdpr === 'special' && masked[key] !== null) masked[key] = '[redacted]';
  }
  return masked;
}
