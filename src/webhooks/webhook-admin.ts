import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { sql } from 'kysely';
import type { Expression, SqlBool } from 'kysely';
import { notFound } from '../http/errors.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { webhookDeliveries } from '../registry/sub-collections/webhook-deliveries.js';
import { webhookDeliveryAttempts } from '../registry/sub-collections/webhook-delivery-attempts.js';
import type { ResourceDef } from '../registry/types.js';
import { listRows } from '../services/list-records.js';
import { rowToRecord } from '../data/record-codec.js';
import type { QueryString } from '../query/list-query.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { newWebhookSecret } from './signature.js';
import { keepFields } from '../query/keep-fields.js';

const webhooks = getResource('webhooks');

/** A list envelope: one page of a sub-collection and the total. */
export interface ListPage {
  readonly items: Record<string, unknown>[];
  readonly total: number;
  readonly page: number;
  readonly per_page: number;
}

/** How long the previous secret keeps signing after a rotation. */
export const rotationOverlapMs = 24 * 60 * 60 * 1000;

/**
 * The webhook operations beyond CRUD. Each first finds the webhook in the caller's
 * tenants (another tenant's id is a 404), so deliveries are only ever visible within the
 * tenant.
 */
export class WebhookAdmin {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly dataKey: DataKey,
    private readonly dispatcher?: WebhookDispatcher,
  ) {}

  async rotateSecret(context: RequestContext, id: string): Promise<{ secret: string; previous_valid_until: string }> {
    const secret = newWebhookSecret();
    return runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const row = await unit.find(webhooks, id, { lock: 'update' });
      if (!row) throw notFound('webhooks');
      const current = await unit.trx.selectFrom('webhook_secrets').select('secret').where('webhook_id', '=', id).executeTakeFirst();
      const until = unit.now + rotationOverlapMs;
      const sealed = this.dataKey.encrypt(secret);
      if (current) await unit.trx.updateTable('webhook_secrets').set({ secret: sealed, previous: current.secret, previous_until: until }).where('webhook_id', '=', id).execute();
      else await unit.trx.insertInto('webhook_secrets').values({ webhook_id: id, secret: sealed, previous: null, previous_until: null }).execute();
      const previousValidUntil = new Date(until).toISOString();
      // Audited under its own name; the secrets themselves never reach the trail.
      await unit.update(webhooks, row, String(row.etag), {}, { action: 'rotate-secret', audit: { old: null, new: { previous_valid_until: previousValidUntil } } });
      return { secret, previous_valid_until: previousValidUntil };
    });
  }

  /** One page of a webhook's deliveries, with the full list query language (filters, sort, fields, paging). */
  async deliveries(context: RequestContext, id: string, query: QueryString): Promise<ListPage> {
    await this.webhook(context, id);
    return this.list(context, webhookDeliveries, query, sql<SqlBool>`${sql.ref('webhook_id')} = ${id}`);
  }

  /**
   * One page of a delivery's attempts (one row each, oldest first unless sorted otherwise),
   * tenant-scoped like the webhook: another tenant's webhook or delivery is a 404.
   */
  async attempts(context: RequestContext, id: string, deliveryId: string, query: QueryString): Promise<ListPage> {
    await this.webhook(context, id);
    const queries = new ScopedQueries(this.database.db, this.database.dialect, context.principal);
    const delivery = await queries.scoped(webhookDeliveries).select('_id').where('_id', '=', deliveryId).where('webhook_id', '=', id).executeTakeFirst();
    if (!delivery) throw notFound(webhookDeliveries.name);
    return this.list(context, webhookDeliveryAttempts, { sort: 'attempt', ...query }, sql<SqlBool>`${sql.ref('delivery_id')} = ${deliveryId}`);
  }

  /**
   * Schedules a new attempt of a delivery now (also of a failed one), audited as `retry` on
   * the webhook in the same transaction as the delivery's change. While an attempt is under
   * way (claimed, its lease still running) that attempt is the new one and the schedule is
   * left alone: made due again, the delivery would be sent a second time by the next poll
   * and the live attempt recorded as abandoned.
   */
  async retry(context: RequestContext, id: string, deliveryId: string): Promise<void> {
    await runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const hook = await unit.find(webhooks, id);
      if (!hook) throw notFound('webhooks');
      const at = unit.dialect.toDb('timestamp', unit.at);
      const result = await unit.trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at, updated_at: at })
        .where('_id', '=', deliveryId)
        .where('webhook_id', '=', id)
        .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('next_attempt_at', '<=', at)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) {
        const underWay = await unit.trx.selectFrom('webhook_deliveries').select('_id').where('_id', '=', deliveryId).where('webhook_id', '=', id).executeTakeFirst();
        if (!underWay) throw notFound(webhookDeliveries.name);
      }
      await unit.audit({
        category: 'data',
        action: 'retry',
        resource: 'webhooks',
        recordId: id,
        tenantId: (hook.tenant_id as string | null) ?? null,
        oldValues: null,
        newValues: { delivery_id: deliveryId },
      });
    });
  }

  /**
   * Queues a `ping` delivery, audited as `test` on the webhook in the same transaction as the
   * delivery row. An incoming webhook sends nothing: like `receive` on an outgoing one, it is
   * not found here (a ping to it would only retry against no address for a day).
   */
  async test(context: RequestContext, id: string): Promise<string> {
    const { dispatcher } = this;
    if (!dispatcher) throw notFound('webhooks');
    return runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const hook = await unit.find(webhooks, id);
      if (!hook || hook.direction === 'incoming') throw notFound('webhooks');
      const tenantId = (hook.tenant_id as string | null) ?? null;
      const delivery = dispatcher.pingDelivery({ _id: id, tenant_id: tenantId }, unit.now);
      await unit.trx.insertInto('webhook_deliveries').values(delivery).execute();
      await unit.audit({ category: 'data', action: 'test', resource: 'webhooks', recordId: id, tenantId, oldValues: null, newValues: { delivery_id: delivery._id } });
      return delivery._id;
    });
  }

  private async list(context: RequestContext, collection: ResourceDef, query: QueryString, within: Expression<SqlBool>): Promise<ListPage> {
    const parsed = parseListQuery(collection, query);
    const queries = new ScopedQueries(this.database.db, this.database.dialect, context.principal);
    const page = await listRows(queries, collection, parsed, undefined, within);
    const items = page.rows.map((row) => rowToRecord(collection, this.database.dialect, row));
    keepFields(items, parsed.fields);
    return { items, total: page.total, page: parsed.page, per_page: parsed.perPage };
  }

  private async webhook(context: RequestContext, id: string): Promise<Record<string, unknown>> {
    const row = await new ScopedQueries(this.database.db, this.database.dialect, context.principal).find(webhooks, id);
    if (!row) throw notFound('webhooks');
    return row;
  }
}
