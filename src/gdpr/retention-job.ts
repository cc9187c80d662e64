import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import { IdempotencyKeys } from '../http/idempotency.js';
import type { Clock } from '../core/clock.js';
import { JobLeases } from '../services/job-lease.js';
import { applyRetentionPolicies } from './retention-policies.js';
import { purgeExpiredAudit } from '../services/audit-retention.js';
import { clearDeletedTenantContacts } from './tenant-contacts.js';
import { purgeReceivedEvents } from '../webhooks/received-retention.js';
import { purgeDeliveryHistory } from '../webhooks/delivery-retention.js';
import { purgeExpiredChallenges } from '../sign-in/challenge-retention.js';
import { retentionFromConfig } from '../services/audit-retention.js';
import type { RetentionDays } from '../services/audit-retention.js';
import type { Config } from '../config/config.js';

/** How long each kind of stored data is kept (from the configuration). */
export interface RetentionSettings {
  /** Audit entries per category (`AUDIT_RETENTION_*`). */
  readonly audit: RetentionDays;
  /** Received incoming-webhook events (`WEBHOOK_RECEIVED_RETENTION_DAYS`). */
  readonly receivedWebhookDays: number;
  /** Finished outgoing deliveries and dispatched outbox events (`WEBHOOK_DELIVERY_RETENTION_DAYS`). */
  readonly deliveryHistoryDays: number;
  /** Days after a tenant node's deletion before its contact is erased (`TENANT_CONTACT_RETENTION_DAYS`). */
  readonly tenantContactDays: number;
}

export function retentionSettingsFromConfig(
  config: Pick<Config, 'auditRetentionDays' | 'auditRetentionDataDays' | 'auditRetentionSecurityDays' | 'webhookReceivedRetentionDays' | 'webhookDeliveryRetentionDays' | 'tenantContactRetentionDays'>,
): RetentionSettings {
  return {
    audit: retentionFromConfig(config),
    receivedWebhookDays: config.webhookReceivedRetentionDays,
    deliveryHistoryDays: config.webhookDeliveryRetentionDays,
    tenantContactDays: config.tenantContactRetentionDays,
  };
}

/**
 * One run of the retention job: the audit retention purge, idempotency keys past their
 * 24 h window, received webhook events past `WEBHOOK_RECEIVED_RETENTION_DAYS`, delivery
 * history past `WEBHOOK_DELIVERY_RETENTION_DAYS`, sign-in challenges a day after they
 * expired, contacts of tenant nodes deleted longer ago than `TENANT_CONTACT_RETENTION_DAYS`,
 * then the retention policies (`retention-policies`).
 */
export async function runRetention(database: Database, retention: RetentionSettings, clock: Clock, log: FastifyBaseLogger): Promise<void> {
  const report = await purgeExpiredAudit(database, retention.audit, clock.now(), {
    onBatch: (category, deleted) => log.debug({ category, deleted }, 'audit retention batch'),
  });
  const idempotencyKeys = await new IdempotencyKeys(database, clock).purgeExpired(clock.now());
  const receivedWebhookEvents = await purgeReceivedEvents(database, clock.now(), retention.receivedWebhookDays);
  const deliveryHistory = await purgeDeliveryHistory(database, clock.now(), retention.deliveryHistoryDays);
  const signInChallenges = await purgeExpiredChallenges(database, clock.now());
  const tenantContacts = await clearDeletedTenantContacts(database, clock, retention.tenantContactDays);
  log.info({ purged: report.purged, cutoffs: report.cutoffs, idempotencyKeys, receivedWebhookEvents, deliveryHistory, signInChallenges, tenantContacts }, 'audit retention run finished');
  const policies = await applyRetentionPolicies(database, clock);
  if (policies.length > 0) log.info({ policies }, 'retention policies applied');
}

/**
 * Runs {@link runRetention} every `intervalMinutes` (and once shortly after start). A run
 * never overlaps the previous one, and across instances sharing the database only the
 * holder of the interval's lease runs; failures are logged and retried next time.
 * Returns a stop function for graceful shutdown.
 */
export function startRetentionJob(database: Database, retention: RetentionSettings, intervalMinutes: number, clock: Clock, log: FastifyBaseLogger): () => Promise<void> {
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
          // Info, like a finished run: one line per interval tells the operator every instance took part.
          log.info('audit retention run skipped: another instance holds this interval');
          return;
        }
        await runRetention(database, retention, clock, log);
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
