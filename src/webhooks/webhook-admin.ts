import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { sql } from 'kysely';
import type { SqlBool } from 'kysely';
import { notFound } from '../http/errors.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { webhookDeliveries } from '../registry/sub-collections/webhook-deliveries.js';
import { listRows } from '../services/list-records.js';
import { rowToRecord } from '../services/record-codec.js';
import type { QueryString } from '../query/list-query.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import type { Clock } from '../services/clock.js';
import type { RequestContext } from '../services/request-context.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { newWebhookSecret } from './signature.js';

const webhooks = getResource('webhooks');

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
  async deliveries(context: RequestContext, id: string, query: QueryString): Promise<{ items: Record<string, unknown>[]; total: number; page: number; per_page: number }> {
    await this.webhook(context, id);
    const parsed = parseListQuery(webhookDeliveries, query);
    const queries = new ScopedQueries(this.database.db, this.database.dialect, context.principal);
    const page = await listRows(queries, webhookDeliveries, parsed, undefined, sql<SqlBool>`${sql.ref('webhook_id')} = ${id}`);
    const items = page.rows.map((row) => rowToRecord(webhookDeliveries, this.database.dialect, row));
    if (parsed.fields) {
      const keep = new Set(parsed.fields);
      for (const item of items) for (const key of Object.keys(item)) if (!keep.has(key)) delete item[key];
    }
    return { items, total: page.total, page: parsed.page, per_page: parsed.perPage };
  }

  /** Schedules a new attempt of a delivery now (also of a failed one). */
  async retry(context: RequestContext, id: string, deliveryId: string): Promise<void> {
    await this.webhook(context, id);
    const now = this.clock.now();
    const at = this.database.dialect.toDb('timestamp', new Date(now).toISOString());
    const result = await this.database.db.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: at, updated_at: at }).where('_id', '=', deliveryId).where('webhook_id', '=', id).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw notFound('webhooks');
  }

  async test(context: RequestContext, id: string): Promise<string> {
    const row = await this.webhook(context, id);
    if (!this.dispatcher) throw notFound('webhooks');
    return this.dispatcher.ping({ _id: id, tenant_id: (row.tenant_id as string | null) ?? null });
  }

  private async webhook(context: RequestContext, id: string): Promise<Record<string, unknown>> {
    const row = await new ScopedQueries(this.database.db, this.database.dialect, context.principal).find(webhooks, id);
    if (!row) throw notFound('webhooks');
    return row;
  }
}
