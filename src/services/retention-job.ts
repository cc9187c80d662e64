import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import { IdempotencyKeys } from '../http/idempotency.js';
import type { Clock } from './clock.js';
import { JobLeases } from './job-lease.js';
import { applyRetentionPolicies } from '../gdpr/retention-policies.js';
import { purgeExpiredAudit } from './audit-retention.js';
import { purgeReceivedEvents } from '../webhooks/received-retention.js';
import type { RetentionDays } from './audit-retention.js';

/**
 * Runs the audit retention purge, then the retention policies (`retention-policies`), and
 * drops idempotency keys past their 24 h window and received webhook event ids past their
 * 30 days, every `intervalMinutes` (and once shortly after start). A run never overlaps
 * the previous one, and across instances sharing the
 * database only the holder of the interval's lease runs; failures are logged and retried
 * next time.
 * Returns a stop function for graceful shutdown.
 */
export function startRetentionJob(database: Database, retention: RetentionDays, intervalMinutes: number, clock: Clock, log: FastifyBaseLogger): () => Promise<void> {
  if (intervalMinutes <= 0) {
    log.info('audit retention job disabled (AUDIT_PURGE_INTERVAL_MINUTES=0)');
    return async () => undefined;
  }
  let running: Promise<void> | undefined;
  const leases = new JobLeases(database);
  const intervalMs = intervalMinutes * 60_000;
  const run = () => {
    if (running) return;
    running = (async () => {
      try {
        // A little shorter than the interval, so this instance's next run is not locked out by its own lease.
        if (!(await leases.acquire('retention', clock.now(), clock.now() + intervalMs - 5_000))) {
          log.debug('audit retention run skipped: another instance holds this interval');
          return;
        }
        const report = await purgeExpiredAudit(database, retention, clock.now(), {
          onBatch: (category, deleted) => log.debug({ category, deleted }, 'audit retention batch'),
        });
        const idempotencyKeys = await new IdempotencyKeys(database, clock).purgeExpired(clock.now());
        const receivedWebhookEvents = await purgeReceivedEvents(database, clock.now());
        log.info({ purged: report.purged, cutoffs: report.cutoffs, idempotencyKeys, receivedWebhookEvents }, 'audit retention run finished');
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
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
