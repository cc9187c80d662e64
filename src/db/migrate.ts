import { Migrator } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely';
import type { Database } from './dialect.js';
import { resourcesMigration } from './migrations/0001-resources.js';
import { authMigration } from './migrations/0002-auth.js';
import { auditMigration } from './migrations/0003-audit.js';
import { compositeIndexMigration } from './migrations/0004-composite-indexes.js';
import { outboxMigration } from './migrations/0005-outbox.js';
import { gdprMigration } from './migrations/0006-gdpr.js';
import { webhooksMigration } from './migrations/0007-webhooks.js';
import { signInMigration } from './migrations/0008-sign-in.js';
import { idempotencyKeysMigration } from './migrations/0009-idempotency-keys.js';
import { jobLeasesMigration } from './migrations/0010-job-leases.js';
import { incomingWebhooksMigration } from './migrations/0011-incoming-webhooks.js';
import { oauthLoginMigration } from './migrations/0012-oauth-login.js';
import { otpResendLocksMigration } from './migrations/0013-otp-resend-locks.js';
import { webhookDeliveryEventIndexMigration } from './migrations/0014-webhook-delivery-event-index.js';
import { productTimeZoneMigration } from './migrations/0015-product-time-zone.js';
import { bookingHoldingsIndexMigration } from './migrations/0016-booking-holdings-index.js';
import { webhookDeliveryAttemptsMigration } from './migrations/0017-webhook-delivery-attempts.js';
import { productBookingSpansMigration } from './migrations/0018-product-booking-spans.js';
import { coveringHoldingsIndexMigration } from './migrations/0019-covering-holdings-index.js';
import { retentionIndexesMigration } from './migrations/0020-retention-indexes.js';
import { idempotencyAnswerRecordsMigration } from './migrations/0021-idempotency-answer-records.js';
import { totpLockoutMigration } from './migrations/0022-totp-lockout.js';
import { randomEtagsMigration } from './migrations/0023-random-etags.js';
import { webhookDeliveryClaimsMigration } from './migrations/0024-webhook-delivery-claims.js';
import { sellingMigration } from './migrations/0025-selling.js';
import { calendarsMigration } from './migrations/0026-calendars.js';
import { subjectIndexesMigration } from './migrations/0027-subject-indexes.js';
import { assertSchemaMatchesRegistry } from './schema-drift.js';

/** All migrations in order; names sort lexically. Each states its schema as frozen data. */
function migrations(database: Database): Record<string, Migration> {
  return {
    '0001-resources': resourcesMigration(database.dialect),
    '0002-auth': authMigration(database.dialect),
    '0003-audit': auditMigration(database.dialect),
    '0004-composite-indexes': compositeIndexMigration(database.dialect),
    '0005-outbox': outboxMigration(database.dialect),
    '0006-gdpr': gdprMigration(database.dialect),
    '0007-webhooks': webhooksMigration(database.dialect),
    '0008-sign-in': signInMigration(database.dialect),
    '0009-idempotency-keys': idempotencyKeysMigration(database.dialect),
    '0010-job-leases': jobLeasesMigration(database.dialect),
    '0011-incoming-webhooks': incomingWebhooksMigration(database.dialect),
    '0012-oauth-login': oauthLoginMigration(database.dialect),
    '0013-otp-resend-locks': otpResendLocksMigration(database.dialect),
    '0014-webhook-delivery-event-index': webhookDeliveryEventIndexMigration(),
    '0015-product-time-zone': productTimeZoneMigration(database.dialect),
    '0016-booking-holdings-index': bookingHoldingsIndexMigration(database.dialect),
    '0017-webhook-delivery-attempts': webhookDeliveryAttemptsMigration(database.dialect),
    '0018-product-booking-spans': productBookingSpansMigration(database.dialect),
    '0019-covering-holdings-index': coveringHoldingsIndexMigration(database.dialect),
    '0020-retention-indexes': retentionIndexesMigration(),
    '0021-idempotency-answer-records': idempotencyAnswerRecordsMigration(database.dialect),
    '0022-totp-lockout': totpLockoutMigration(),
    '0023-random-etags': randomEtagsMigration(database.dialect),
    '0024-webhook-delivery-claims': webhookDeliveryClaimsMigration(database.dialect),
    '0025-selling': sellingMigration(database.dialect),
    '0026-calendars': calendarsMigration(database.dialect),
    '0027-subject-indexes': subjectIndexesMigration(database.dialect),
  };
}

/** Migration names, oldest first (upgrade tests start from each). */
export function migrationNames(database: Database): readonly string[] {
  return Object.keys(migrations(database)).sort();
}

export interface MigrationReport {
  readonly applied: readonly string[];
}

/**
 * Features developed side by side number their migrations in ranges (0006 GDPR, 0007
 * webhooks, …); a database may have applied a later number before an earlier one lands.
 * Migrations are frozen and touch disjoint tables, so they may run out of order.
 */
function migrator(database: Database, db = database.db): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database) };
  return new Migrator({ db, provider, allowUnorderedMigrations: true });
}

/**
 * Brings the schema to the latest version, then checks it against the registry (a field
 * declared without a migration stops the boot with a message naming it). Safe when
 * several instances start together: the run holds the dialect's exclusive lock, and
 * Kysely records what was applied. On PostgreSQL behind a transaction pooler the run goes
 * over the direct connection (`DATABASE_DIRECT_URL`): the advisory lock is a session's.
 */
export async function migrateToLatest(database: Database): Promise<MigrationReport> {
  const report = await database.dialect.withExclusiveLock(database.migrationDb ?? database.db, async (db) => {
    const { error, results } = await migrator(database, db).migrateToLatest();
    if (error) throw new Error('database migration failed', { cause: error });
    return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
  });
  await assertSchemaMatchesRegistry(database);
  await database.dialect.refreshStatistics(database.db);
  return report;
}

/** Migrates up to and including `name` only (upgrade tests build databases at earlier levels). */
export async function migrateTo(database: Database, name: string): Promise<void> {
  await database.dialect.withExclusiveLock(database.migrationDb ?? database.db, async (db) => {
    const { error } = await migrator(database, db).migrateTo(name);
    if (error) throw new Error(`database migration to ${name} failed`, { cause: error });
  });
}

/** True when every known migration has been applied (readiness). */
export async function migrationsComplete(database: Database): Promise<boolean> {
  const all = await migrator(database).getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}
