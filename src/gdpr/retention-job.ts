import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/dialect.js';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.js';
import type { Clock } from '../core/clock.js';
import { JobLeases } from '../services/job-lease.js';
import { applyRetentionPolicies } from './retention-policies.js';
import type { PolicyRun } from './retention-policies.js';
import { purgeExpiredAudit } from '../services/audit-retention.js';
import type { PurgeReport } from '../services/audit-retention.js';
import { clearDeletedTenantContacts } from './tenant-contacts.js';
import { purgeReceivedEvents } from '../webhooks/received-retention.js';
import { purgeDeliveryHistory } from '../webhooks/delivery-retention.js';
import type { DeliveryHistoryPurge } from '../webhooks/delivery-retention.js';
import { purgeExpiredChallenges } from '../sign-in/challenge-retention.js';
import type { ChallengePurge } from '../sign-in/challenge-retention.js';
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

/** What one run of the retention job did, step by step. */
export interface RetentionReport {
  /** Audit entries past `AUDIT_RETENTION_*`, by category, and the cutoffs used. */
  readonly audit: PurgeReport;
  readonly idempotencyKeys: number;
  readonly receivedWebhookEvents: number;
  readonly deliveryHistory: DeliveryHistoryPurge;
  readonly signInChallenges: ChallengePurge;
  /** Contacts cleared on tenant nodes deleted longer ago than `TENANT_CONTACT_RETENTION_DAYS`. */
  readonly tenantContacts: number;
  readonly policies: readonly PolicyRun[];
}

/**
 * One run of the retention job: the audit retention purge, idempotency keys past their
 * 24 h window, received webhook events past `WEBHOOK_RECEIVED_RETENTION_DAYS`, delivery
 * history past `WEBHOOK_DELIVERY_RETENTION_DAYS`, sign-in challenges a day after they
 * expired, contacts of tenant nodes deleted longer ago than `TENANT_CONTACT_RETENTION_DAYS`,
 * then the retention policies (`retention-policies`). Each step commits its own batches, so
 * a run that fails part-way keeps what it finished and the next run does the rest.
 */
export async function runRetention(database: Database, retention: RetentionSettings, clock: Clock, log: FastifyBaseLogger): Promise<RetentionReport> {
  const audit = await purgeExpiredAudit(database, retention.audit, clock.now(), {
    onBatch: (category, deleted) => log.debug({ category, deleted }, 'audit retention batch'),
  });
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(database, clock.now());
  const receivedWebhookEvents = await purgeReceivedEvents(database, clock.now(), retention.receivedWebhookDays);
  const deliveryHistory = await purgeDeliveryHistory(database, clock.now(), retention.deliveryHistoryDays);
  const signInChallenges = await purgeExpiredChallenges(database, clock.now());
  const tenantContacts = await clearDeletedTenantContacts(database, clock, retention.tenantContactDays);
  log.info({ purged: audit.purged, cutoffs: audit.cutoffs, idempotencyKeys, receivedWebhookEvents, deliveryHistory, signInChallenges, tenantContacts }, 'audit retention run finished');
  const policies = await applyRetentionPolicies(database, clock);
  if (policies.length > 0) log.info({ policies }, 'retention policies applied');
  // What this run and any erasure since the last one removed, out of the files too (SQLite's
  // log): an erasure that found the log in use is completed here, within one interval.
  const purged = await database.purgeOverwritten?.();
  if (purged && !purged.complete) log.warn('the write-ahead log was in use: removed values stay in it until the next retention run');
  return { audit, idempotencyKeys, receivedWebhookEvents, deliveryHistory, signInChallenges, tenantContacts, policies };
}

/**
 * The rows a run removed (or, for tenant contacts and anonymising policies, cleared), by
 * kind: the `retention_rows_total` metric's labels. Every kind is listed, zeros included,
 * so a dashboard sees each series from the first run.
 */
export function retentionRowCounts(report: RetentionReport): Record<string, number> {
  const { audit, deliveryHistory, signInChallenges } = report;
  const counts: Record<string, number> = {
    audit_data: audit.purged.data,
    audit_security: audit.purged.security,
    idempotency_keys: report.idempotencyKeys,
    received_webhook_events: report.receivedWebhookEvents,
    webhook_deliveries: deliveryHistory.deliveries,
    webhook_delivery_attempts: deliveryHistory.attempts,
    outbox_events: deliveryHistory.outboxEvents,
    otp_challenges: signInChallenges.otp,
    mfa_challenges: signInChallenges.mfa,
    otp_daily_counts: signInChallenges.dailyCounts,
    tenant_contacts: report.tenantContacts,
  };
  for (const run of report.policies) {
    const kind = `policy_${run.category}_${run.action}`;
    counts[kind] = (counts[kind] ?? 0) + run.processed;
  }
  return counts;
}

/** How a scheduled attempt ended: it ran, another instance held the interval, or it failed. */
export type RetentionOutcome = { readonly outcome: 'finished'; readonly report: RetentionReport } | { readonly outcome: 'skipped' | 'failed' };

/**
 * Runs {@link runRetention} every `intervalMinutes` (and once shortly after start). A run
 * never overlaps the previous one, and across instances sharing the database only the
 * holder of the interval's lease runs; failures are logged and retried next time.
 * `onAttempt` hears how each attempt ended (the metrics). Returns a stop function for
 * graceful shutdown.
 */
export function startRetentionJob(
  database: Database,
  retention: RetentionSettings,
  intervalMinutes: number,
  clock: Clock,
  log: FastifyBaseLogger,
  onAttempt: (attempt: RetentionOutcome) => void = () => undefined,
): () => Promise<void> {
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
          onAttempt({ outcome: 'skipped' });
          return;
        }
        onAttempt({ outcome: 'finished', report: await runRetention(database, retention, clock, log) });
      } catch (error) {
        log.error({ err: error }, 'audit retention run failed');
        onAttempt({ outcome: 'failed' });
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
