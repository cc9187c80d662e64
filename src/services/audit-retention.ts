import { sql } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import { asSystem } from '../security/principal.js';
import { appendAudit } from './audit-trail.js';
import type { AuditCategory } from './audit-trail.js';

/** Days to keep entries, per audit category. */
export type RetentionDays = Readonly<Record<AuditCategory, number>>;

export function retentionFromConfig(config: Pick<Config, 'auditRetentionDays' | 'auditRetentionDataDays' | 'auditRetentionSecurityDays'>): RetentionDays {
  return {
    data: config.auditRetentionDataDays ?? config.auditRetentionDays,
    security: config.auditRetentionSecurityDays ?? config.auditRetentionDays,
  };
}

export interface PurgeReport {
  readonly purged: Record<AuditCategory, number>;
  readonly cutoffs: Record<AuditCategory, string>;
}

/**
 * Deletes audit entries older than their category's retention, in batches (one short
 * transaction each, so the service keeps serving), skipping entries under an active
 * legal hold — on the entry itself or on the record it describes.
 */
export async function purgeExpiredAudit(database: Database, retention: RetentionDays, now: number, options: { batchSize?: number; onBatch?: (category: AuditCategory, deleted: number) => void } = {}): Promise<PurgeReport> {
  const batchSize = options.batchSize ?? 1000;
  const { db, dialect } = database;
  const purged: Record<AuditCategory, number> = { data: 0, security: 0 };
  const cutoffs = {} as Record<AuditCategory, string>;
  const nowIso = new Date(now).toISOString();
  for (const category of Object.keys(retention) as AuditCategory[]) {
    const cutoff = new Date(now - retention[category] * 86_400_000).toISOString();
    cutoffs[category] = cutoff;
    for (;;) {
      const deleted = await db.transaction().execute(async (trx) => {
        const ids = await trx
          .selectFrom('audit_logs as a')
          .select('a._id')
          .where('a.category', '=', category)
          .where('a.created_at', '<', dialect.toDb('timestamp', cutoff))
          .where(({ not, exists, selectFrom }) =>
            not(exists(
              selectFrom('legal_holds as h')
                .select(sql`1`.as('one'))
                .where('h.deleted_at', 'is', null)
                .where((eb) => eb.or([eb('h.expires_at', 'is', null), eb('h.expires_at', '>', dialect.toDb('timestamp', nowIso))]))
                .where((eb) => eb.or([
                  eb.and([eb('h.resource', '=', eb.ref('a.resource')), eb('h.record_id', '=', eb.ref('a.record_id'))]),
                  eb.and([eb('h.resource', '=', 'audit-logs'), eb('h.record_id', '=', eb.ref('a._id'))]),
                ])),
            )),
          )
          .limit(batchSize)
          .execute();
        if (ids.length === 0) return 0;
        const deleted = await dialect.withPurgeGate(trx, async () => {
          const result = await trx.deleteFrom('audit_logs').where('_id', 'in', ids.map((r) => String(r._id))).executeTakeFirst();
          return Number(result.numDeletedRows);
        });
        // The purge is itself a change to the trail: recorded in the same transaction.
        await appendAudit(trx, dialect, { principal: asSystem(), clientIp: null, requestId: null }, {
          category: 'security', action: 'audit_purged', resource: 'audit-logs', recordId: null, tenantId: null,
          oldValues: null, newValues: { category, deleted, cutoff },
        }, now);
        return deleted;
      });
      purged[category] += deleted;
      if (deleted > 0) options.onBatch?.(category, deleted);
      if (deleted < batchSize) break;
    }
  }
  return { purged, cutoffs };
}
