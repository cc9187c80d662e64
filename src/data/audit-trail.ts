import { newRecordId } from '../lib/record-id.js';
import type { Db, SqlDialect } from '../db/dialect.js';
import { findResource, getResource } from '../registry/index.js';
import type { RequestContext } from '../core/request-context.js';
import { recordToRow } from './record-codec.js';
import { nextEtag } from '../core/etag.js';
import { seal, subjectKey } from './subject-keys.js';

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
  /**
   * Data subject of the changed record (a user id, or `<resource>/<id>`): its personal
   * values are stored encrypted with the subject's key (see `subject-keys.ts`).
   */
  readonly subject?: string;
}

const auditLogs = getResource('audit-logs');

/** The stored row of an audit entry. */
function auditRow(dialect: SqlDialect, context: RequestContext, event: AuditEvent, now: number): Record<string, unknown> {
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
  return { ...recordToRow(auditLogs, dialect, record), etag: nextEtag() };
}

/**
 * Appends an audit entry and returns its id. Callers pass the transaction of the change
 * itself, so the change and its entry commit or roll back together.
 */
export async function appendAudit(trx: Db, dialect: SqlDialect, context: RequestContext, event: AuditEvent, now: number): Promise<string> {
  const row = auditRow(dialect, context, await sealPersonal(trx, dialect, event, now), now);
  await trx.insertInto(auditLogs.table).values(row).execute();
  return String(row._id);
}

/** Rows per INSERT: 15 columns each stays far below SQLite's and PostgreSQL's parameter limits. */
const rowsPerInsert = 200;

/** Appends many entries (a batch of security events) with one multi-row INSERT per 200. */
export async function appendAuditBatch(trx: Db, dialect: SqlDialect, entries: readonly { context: RequestContext; event: AuditEvent; at: number }[]): Promise<void> {
  for (let start = 0; start < entries.length; start += rowsPerInsert) {
    const rows = entries.slice(start, start + rowsPerInsert).map(({ context, event, at }) => auditRow(dialect, context, event, at));
    await trx.insertInto(auditLogs.table).values(rows).execute();
  }
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

/**
 * Personal values of a subject's record are sealed with the subject's data key, so erasure
 * (which destroys the key) makes them unreadable without rewriting the append-only trail.
 */
async function sealPersonal(trx: Db, dialect: SqlDialect, event: AuditEvent, now: number): Promise<AuditEvent> {
  const resource = findResource(event.resource);
  if (!event.subject || !resource) return event;
  const personal = (values: Readonly<Record<string, unknown>> | null) => Object.keys(values ?? {}).filter((k) => resource.fields[k]?.gdpr === 'personal' && values?.[k] !== null && values?.[k] !== undefined);
  if (personal(event.oldValues).length === 0 && personal(event.newValues).length === 0) return event;
  const { id, key } = await subjectKey(trx, dialect, event.subject, now);
  const sealAll = (values: Readonly<Record<string, unknown>> | null) => {
    if (!values) return values;
    const out: Record<string, unknown> = { ...values };
    for (const k of personal(values)) out[k] = seal(id, key, values[k]);
    return out;
  };
  return { ...event, oldValues: sealAll(event.oldValues), newValues: sealAll(event.newValues) };
}
