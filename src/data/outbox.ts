import type { Db, SqlDialect } from '../db/dialect.js';
import { capabilityFreeReader, hideFields } from '../derive/field-access.js';
import { newRecordId } from '../lib/record-id.js';
import { findResource } from '../registry/index.js';

/** One change worth telling subscribers about, recorded with the change itself. */
export interface OutboxEvent {
  /** `<resource>.created`, `<resource>.updated`, `<resource>.deleted`, or a sub-operation's event. */
  readonly type: string;
  readonly resource: string;
  readonly recordId: string;
  /** Tenant node that owns the record (`null`: the root node). */
  readonly tenantId: string | null;
  /** The record after the change (for deletes, its last state); stored without its sensitive fields. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The audit entry of the same change. */
  readonly auditId: string;
}

/**
 * An event's record as webhooks send it: without the fields whose read needs a capability
 * (a webhook has none, docs/webhooks.md), so the outbox never holds what no delivery sends.
 */
function withoutSensitiveFields(resourceName: string, data: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const resource = findResource(resourceName);
  return resource ? hideFields(resource, capabilityFreeReader, { ...data }) : data;
}

/**
 * Appends an event to the transactional outbox. Callers pass the transaction of the change,
 * so there is exactly one event per committed change and none for a rolled-back one; a
 * dispatcher delivers from the table after commit. Sensitive fields are left out here,
 * for every caller (docs/gdpr.md, "Where personal data lives").
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
      data: dialect.toDb('object', withoutSensitiveFields(event.resource, event.data)),
      dispatched_at: null,
    })
    .execute();
  return id;
}

/**
 * Rewrites the pending and past events of records with `replace` applied to their data,
 * and the webhook deliveries fanned out from them (erasure: no personal value stays in the
 * outbox, and a delivery still to be retried sends the erased record). Events are not
 * evidence; the audit trail is.
 */
export async function rewriteOutboxData(trx: Db, dialect: SqlDialect, resource: string, recordIds: readonly string[], replace: (data: Record<string, unknown>) => Record<string, unknown>): Promise<number> {
  let rewritten = 0;
  for (let start = 0; start < recordIds.length; start += 500) {
    const events = await trx.selectFrom('outbox_events').select(['_id', 'data']).where('resource', '=', resource).where('record_id', 'in', recordIds.slice(start, start + 500)).execute();
    if (events.length === 0) continue;
    for (const event of events) {
      const data = dialect.fromDb('object', event.data) as Record<string, unknown>;
      const replaced = replace(data);
      // An event written already without the values (the erasure's own) needs no write.
      if (JSON.stringify(replaced) === JSON.stringify(data)) continue;
      await trx.updateTable('outbox_events').set({ data: dialect.toDb('object', replaced) }).where('_id', '=', event._id).execute();
      rewritten += 1;
    }
    await rewriteDeliveries(
      trx,
      events.map((event) => event._id),
      replace,
    );
  }
  return rewritten;
}

/** The stored bodies of the events' webhook deliveries, with `replace` applied to their `data`: one read for the lot. */
async function rewriteDeliveries(trx: Db, eventIds: readonly string[], replace: (data: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const deliveries = await trx.selectFrom('webhook_deliveries').select(['_id', 'payload']).where('event_id', 'in', eventIds).execute();
  for (const delivery of deliveries) {
    const body = JSON.parse(delivery.payload) as { data?: Record<string, unknown> };
    const payload = JSON.stringify({ ...body, data: replace(body.data ?? {}) });
    if (payload === delivery.payload) continue;
    await trx.updateTable('webhook_deliveries').set({ payload }).where('_id', '=', delivery._id).execute();
  }
}
