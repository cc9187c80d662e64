import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import type { Clock } from './clock.js';
import { applyRetentionPolicies } from '../gdpr/retention-policies.js';
import { purgeExpiredAudit } from './audit-retention.js';
import type { RetentionDays } from './audit-retention.js';

/**
 * Runs the audit retention purge, then the retention policies (`retention-policies`),
 * every `intervalMinutes` (and once shortly after start).
 * A run never overlaps the previous one; failures are logged and retried next time.
 * Returns a stop function for graceful shutdown.
 */
export function startRetentionJob(database: Database, retention: RetentionDays, intervalMinutes: number, clock: Clock, log: FastifyBaseLogger): () => Promise<void> {
  if (intervalMinutes <= 0) {
    log.info('audit retention job disabled (AUDIT_PURGE_INTERVAL_MINUTES=0)');
    return async () => undefined;
  }
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    running = (async () => {
      try {
        const report = await purgeExpiredAudit(database, retention, clock.now(), {
          onBatch: (category, deleted) => log.debug({ category, deleted }, 'audit retention batch'),
        });
        log.info({ purged: report.purged, cutoffs: report.cutoffs }, 'audit retention run finished');
        const policies = await applyRetentionPolicies(database, clock);
        if (policies.length > 0) log.info({ policies }, 'retention policies applied');
      } catch (error) {
        log.error({ err: error }, 'audit retention run failed');
      } finally {
        running = undefined;
      }
    })();
  };
  const first = setTimeout(run, 5_000);
  const timer = setInterval(run, intervalMinutes * 60_000);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
