import { randomUUID } from 'node:crypto';
import type { Database, Db } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { capabilityFreeReader, hideFields } from '../derive/field-access.js';
import { findResource, getResource } from '../registry/index.js';
import { asSystem } from '../core/principal.js';
import type { Clock } from '../core/clock.js';

const webhooks = getResource('webhooks');
const tenants = getResource('tenants');

/** Outbox events fanned out per transaction. */
export const fanOutBatch = 100;
/** Deliveries per insert statement (SQLite caps the bound parameters of one statement). */
const insertChunk = 50;

/**
 * The oldest outbox event not yet dispatched, if any: every instance asks this each poll,
 * so mostly of an outbox with nothing pending (its plan is tested). Ordered like the claim
 * so that SQLite reads `outbox_events_pending_idx`, which holds only pending events, even
 * with statistics taken while most events were pending: unordered, such statistics had
 * it scan the whole table on every idle poll.
 */
export function firstPendingEvent(db: Db) {
  return db.selectFrom('outbox_events').select('_id').where('dispatched_at', 'is', null).orderBy('_id').limit(1);
}

interface WebhookRow {
  readonly _id: string;
  readonly tenant_id: string | null;
  readonly url: string;
  readonly events: readonly string[];
}

/**
 * The dispatcher's first half: turns pending outbox events into pending delivery rows,
 * one per subscribed, active webhook of the event's node or a node above it. Sending
 * them is the dispatcher's (`dispatcher.ts`).
 */
export class OutboxFanOut {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a pending delivery per subscribed, active webhook of each event's node or above,
   * for one batch of outbox events, in one transaction that also marks them dispatched.
   */
  async run(): Promise<number> {
    const { database, clock } = this;
    const { dialect } = database;
    const pending = await firstPendingEvent(database.db).executeTakeFirst();
    if (!pending) return 0;
    // Read before the transaction: SQLite has one connection, and the claim holds it.
    const subscribers = await this.activeWebhooks();
    return database.db.transaction().execute(async (trx) => {
      let query = trx.selectFrom('outbox_events').selectAll().where('dispatched_at', 'is', null).orderBy('_id').limit(fanOutBatch);
      if (dialect.supportsRowLocks) query = query.forUpdate().skipLocked();
      const events = await query.execute();
      if (events.length === 0) return 0;
      const now = clock.now();
      const system = new ScopedQueries(trx, dialect, asSystem());
      const ancestorsOf = new Map<string | null, ReadonlySet<string>>();
      const rows: ReturnType<OutboxFanOut['delivery']>[] = [];
      for (const event of events) {
        let ancestors = ancestorsOf.get(event.tenant_id);
        if (!ancestors) ancestorsOf.set(event.tenant_id, (ancestors = await this.ancestors(system, event.tenant_id)));
        const reached = ancestors;
        const interested = subscribers.filter((hook) => hook.events.includes(event.type) && reached.has(hook.tenant_id ?? 'system'));
        if (interested.length === 0) continue;
        const payload = JSON.stringify({ type: event.type, timestamp: new Date(now).toISOString(), data: receiverView(event.resource, dialect.fromDb('object', event.data)) });
        for (const hook of interested) rows.push(this.delivery(hook, event._id, event.type, payload, now));
      }
      for (let i = 0; i < rows.length; i += insertChunk)
        await trx
          .insertInto('webhook_deliveries')
          .values(rows.slice(i, i + insertChunk))
          .execute();
      await trx
        .updateTable('outbox_events')
        .set({ dispatched_at: dialect.toDb('timestamp', new Date(now).toISOString()) })
        .where(
          '_id',
          'in',
          events.map((event) => event._id),
        )
        .execute();
      return events.length;
    });
  }

  /**
   * A `ping` delivery to one webhook, due at once: the caller inserts it in its own
   * transaction (the audited `POST /v1/webhooks/{id}/test`), so the row and its audit
   * entry commit together.
   */
  pingDelivery(hook: { _id: string; tenant_id: string | null }, now: number): ReturnType<OutboxFanOut['delivery']> {
    return this.delivery(
      { ...hook, url: '', events: ['ping'] },
      `ping-${randomUUID()}`,
      'ping',
      JSON.stringify({ type: 'ping', timestamp: new Date(now).toISOString(), data: { webhook_id: hook._id } }),
      now,
    );
  }

  private delivery(hook: WebhookRow, eventId: string, type: string, payload: string, now: number) {
    const at = this.timestamp(now);
    return {
      _id: `msg_${randomUUID()}`,
      tenant_id: hook.tenant_id,
      webhook_id: hook._id,
      event_id: eventId,
      type,
      payload,
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: at,
      claimed_at: null,
      created_at: at,
      updated_at: at,
    };
  }

  /** A time as the dialect stores timestamps (the deliveries list filters on them). */
  private timestamp(ms: number): unknown {
    return this.database.dialect.toDb('timestamp', new Date(ms).toISOString());
  }

  private async activeWebhooks(): Promise<WebhookRow[]> {
    const { dialect } = this.database;
    const rows = await new ScopedQueries(this.database.db, dialect, asSystem())
      .scoped(webhooks)
      .selectAll()
      .where('active', '=', dialect.toDb('boolean', true))
      .where('direction', '=', 'outgoing')
      .execute();
    return rows.map((row) => ({ _id: String(row._id), tenant_id: (row.tenant_id as string | null) ?? null, url: String(row.url), events: dialect.fromDb('string_list', row.events) as string[] }));
  }

  /** The node of a record and every node above it (`system` included), from its materialised path. */
  private async ancestors(system: ScopedQueries, tenantId: string | null): Promise<ReadonlySet<string>> {
    if (tenantId === null) return new Set(['system']);
    const node = await system.scoped(tenants, { includeDeleted: true }).select('path').where('_id', '=', tenantId).executeTakeFirst();
    return new Set([
      'system',
      ...String(node?.path ?? `/${tenantId}/`)
        .split('/')
        .filter(Boolean),
    ]);
  }
}

/**
 * The record as a webhook receiver sees it: a webhook has no capabilities of its own (its
 * receiver proves nothing but the signing secret), so every sensitive field is left out,
 * whoever created the webhook (docs/webhooks.md). Decided once, at fan-out: the stored
 * delivery, its retries and the deliveries list never hold more. Events this version
 * records already lack them (`data/outbox.ts`); this covers events an earlier one recorded.
 */
function receiverView(resourceName: string, data: unknown): unknown {
  const resource = findResource(resourceName);
  if (!resource || data === null || typeof data !== 'object') return data;
  return hideFields(resource, capabilityFreeReader, { ...(data as Record<string, unknown>) });
}
