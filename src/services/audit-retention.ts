import { sql } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import type { AuditCategory } from '../data/audit-trail.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { getResource } from '../registry/index.js';
import { asSystem } from '../core/principal.js';

/** Days to keep entries, per audit category. */
export type RetentionDays = Readonly<Record<AuditCategory, number>>;

const auditLogs = getResource('audit-logs');
const legalHolds = getResource('legal-holds');

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
export async function purgeExpiredAudit(
  database: Database,
  retention: RetentionDays,
  now: number,
  options: { batchSize?: number; onBatch?: (category: AuditCategory, deleted: number) => void } = {},
): Promise<PurgeReport> {
  const batchSize = options.batchSize ?? 1000;
  const { dialect } = database;
  const purged: Record<AuditCategory, number> = { data: 0, security: 0 };
  const cutoffs = {} as Record<AuditCategory, string>;
  const nowIso = new Date(now).toISOString();
  const clock = { now: () => now };
  const context = { principal: asSystem(), clientIp: null, requestId: null };
  for (const category of Object.keys(retention) as AuditCategory[]) {
    const cutoff = new Date(now - retention[category] * 86_400_000).toISOString();
    cutoffs[category] = cutoff;
    for (;;) {
      const deleted = await runUnitOfWork(database, clock, context, async (unit) => {
        const activeHolds = unit
          .scoped(legalHolds, { as: 'h' })
          .select(sql`1`.as('one'))
          .where((eb) => eb.or([eb('h.expires_at', 'is', null), eb('h.expires_at', '>', dialect.toDb('timestamp', nowIso))]))
          .where((eb) =>
            eb.or([
              eb.and([eb('h.resource', '=', eb.ref('a.resource')), eb('h.record_id', '=', eb.ref('a.record_id'))]),
              eb.and([eb('h.resource', '=', 'audit-logs'), eb('h.record_id', '=', eb.ref('a._id'))]),
            ]),
          );
        const ids = await unit
          .scoped(auditLogs, { as: 'a' })
          .select('a._id')
          .where('a.category', '=', category)
          .where('a.created_at', '<', dialect.toDb('timestamp', cutoff))
          .where(({ not, exists }) => not(exists(activeHolds)))
          .limit(batchSize)
          .execute();
        const count = await unit.purge(
          auditLogs,
          ids.map((r) => String(r._id)),
        );
        // The purge is itself a change to the trail: recorded in the same transaction.
        if (count > 0) {
          await unit.audit({ category: 'security', action: 'audit_purged', resource: 'audit-logs', recordId: null, tenantId: null, oldValues: null, newValues: { category, deleted: count, cutoff } });
        }
        return count;
      });
      purged[category] += deleted;
      if (deleted > 0) options.onBatch?.(category, deleted);
      if (deleted < batchSize) break;
    }
  }
  return { purged, cutoffs };
}
