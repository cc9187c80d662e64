import type { Db, SqlDialect } from '../db/dialect.js';
import { newRecordId } from '../lib/record-id.js';

/** One change worth telling subscribers about, recorded with the change itself. */
export interface OutboxEvent {
  /** `<resource>.created`, `<resource>.updated`, `<resource>.deleted`, or a sub-operation's event. */
  readonly type: string;
  readonly resource: string;
  readonly recordId: string;
  /** Tenant node that owns the record (`null`: the root node). */
  readonly tenantId: string | null;
  /** The record after the change (for deletes, its last state), as stored. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The audit entry of the same change. */
  readonly auditId: string;
}

/**
 * Appends an event to the transactional outbox. Callers pass the transaction of the change,
 * so there is exactly one event per committed change and none for a rolled-back one; a
 * dispatcher delivers from the table after commit.
 */
export async function appendOutbox(trx: Db, dialect: SqlDialect, event: OutboxEvent, now: number): Promise<string> {
  const id = newRecordId(now);
  await trx
    .insertInto('outbox_events')
    .values({
      _id: id,
      created_at: dialect.toDb('timestamp', new Date(now).toISOString()),
      tenant_id: event.tenantId,
      type: event.type,
      resource: event.resource,
      record_id: event.recordId,
      audit_id: event.auditId,
      data: dialect.toDb('object', event.data),
      dispatched_at: null,
    })
    .execute();
  return id;
}
