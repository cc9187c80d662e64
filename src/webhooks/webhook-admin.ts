import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { notFound, validationError } from '../http/errors.js';
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

/** A delivery as the API shows it (never its payload or the receiver's full answer). */
export interface DeliveryView {
  readonly _id: string;
  readonly event_id: string;
  readonly type: string;
  readonly status: string;
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly next_attempt_at: string | null;
  readonly created_at: string;
}

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

  async deliveries(context: RequestContext, id: string, query: QueryString): Promise<{ items: DeliveryView[]; total: number; page: number; per_page: number }> {
    await this.webhook(context, id);
    const one = (name: string): string | undefined => {
      const value = query[name];
      if (Array.isArray(value)) throw validationError([{ field: name, message: 'may be given once' }]);
      return value as string | undefined;
    };
    const page = positive(one('page'), 'page', 1, 1_000_000);
    const perPage = positive(one('per_page'), 'per_page', 25, 100);
    const status = one('status');
    const type = one('type');
    if (status !== undefined && !['pending', 'succeeded', 'failed'].includes(status)) throw validationError([{ field: 'status', message: 'must be pending, succeeded or failed' }]);
    let base = this.database.db.selectFrom('webhook_deliveries').where('webhook_id', '=', id);
    if (status !== undefined) base = base.where('status', '=', status);
    if (type !== undefined) base = base.where('type', '=', type);
    const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('_id', 'desc').limit(perPage).offset((page - 1) * perPage).execute();
    const total = Number((await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const items = rows.map((row) => ({
      _id: row._id, event_id: row.event_id, type: row.type, status: row.status, attempts: row.attempts, last_status_code: row.last_status_code, last_error: row.last_error,
      next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? new Date(Number(row.next_attempt_at)).toISOString() : null,
      created_at: new Date(Number(row.created_at)).toISOString(),
    }));
    return { items, total, page, per_page: perPage };
  }

  /** Schedules a new attempt of a delivery now (also of a failed one). */
  async retry(context: RequestContext, id: string, deliveryId: string): Promise<void> {
    await this.webhook(context, id);
    const now = this.clock.now();
    const result = await this.database.db.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: now, updated_at: now }).where('_id', '=', deliveryId).where('webhook_id', '=', id).executeTakeFirst();
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

function positive(raw: string | undefined, field: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw validationError([{ field, message: `must be a whole number from 1 to ${max}` }]);
  return Number(raw);
}
