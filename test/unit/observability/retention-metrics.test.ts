import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { retentionRowCounts, retentionSettingsFromConfig, startRetentionJob } from '../../../src/gdpr/retention-job.js';
import type { RetentionOutcome } from '../../../src/gdpr/retention-job.js';
import { loadConfig } from '../../../src/config/config.js';
import { JobLeases } from '../../../src/services/job-lease.js';
import { Metrics } from '../../../src/observability/metrics.js';
import { parsePrometheus, valueOf } from '../../api/observability/prometheus-text.js';

/**
 * The scheduled retention job reports how each attempt ended, so an operator can alert on a
 * job that stopped finishing (`retention_last_finished_timestamp_seconds`) and see what it
 * removes (`retention_rows_total`). Fake timers drive the schedule: no real waiting.
 */
describe('the retention job schedule and its metrics', () => {
  const hour = 60 * 60 * 1000;
  const settings = retentionSettingsFromConfig(loadConfig({ DATA_DIR: '/tmp/x' }));
  const log = pino({ level: 'silent' });
  let database: Database;

  beforeEach(async () => {
    database = openSqlite(':memory:');
    await migrateToLatest(database);
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await database.close();
  });

  /** The attempts of the first scheduled run (5 s after start), at `now`. */
  async function firstAttempt(now: number): Promise<RetentionOutcome[]> {
    const attempts: RetentionOutcome[] = [];
    const stop = startRetentionJob(database, settings, 60, { now: () => now }, log, (attempt) => attempts.push(attempt));
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.waitFor(() => expect(attempts.length).toBeGreaterThan(0));
    await stop();
    return attempts;
  }

  it('reports a finished run with the rows it removed, by kind', async () => {
    const now = Date.UTC(2031, 0, 10, 12);
    await database.db
      .insertInto('mfa_challenges')
      .values([
        { token_hash: 'old', user_id: 'u', attempts: 0, expires_at: now - 30 * hour, used_at: null },
        { token_hash: 'live', user_id: 'u', attempts: 0, expires_at: now + hour, used_at: null },
      ])
      .execute();
    const attempts = await firstAttempt(now);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['finished']);
    const finished = attempts[0];
    if (finished?.outcome !== 'finished') throw new Error('no report');
    const rows = retentionRowCounts(finished.report);
    expect(rows).toMatchObject({ mfa_challenges: 1, otp_challenges: 0, audit_data: 0, webhook_deliveries: 0, tenant_contacts: 0 });

    const metrics = new Metrics();
    metrics.retentionAttempt('finished', rows, now);
    const samples = parsePrometheus(await metrics.render()).samples;
    expect(valueOf(samples, 'retention_runs_total', { outcome: 'finished' })).toBe(1);
    expect(valueOf(samples, 'retention_rows_total', { kind: 'mfa_challenges' })).toBe(1);
    expect(valueOf(samples, 'retention_rows_total', { kind: 'otp_daily_counts' })).toBe(0);
    expect(valueOf(samples, 'retention_last_finished_timestamp_seconds', {})).toBe(now / 1000);
  });

  it('reports a skipped attempt while another instance holds the interval, and a failed one', async () => {
    const now = Date.UTC(2031, 0, 10, 12);
    expect(await new JobLeases(database).acquire('retention', now, now + hour)).toBe(true);
    expect((await firstAttempt(now)).map((attempt) => attempt.outcome)).toEqual(['skipped']);
    // A run that cannot reach its table fails, is logged, and is tried again next interval.
    await database.db.schema.dropTable('job_leases').execute();
    expect((await firstAttempt(now)).map((attempt) => attempt.outcome)).toEqual(['failed']);

    const metrics = new Metrics();
    metrics.retentionAttempt('skipped');
    metrics.retentionAttempt('failed');
    const samples = parsePrometheus(await metrics.render()).samples;
    expect(valueOf(samples, 'retention_runs_total', { outcome: 'skipped' })).toBe(1);
    expect(valueOf(samples, 'retention_runs_total', { outcome: 'failed' })).toBe(1);
    expect(valueOf(samples, 'retention_last_finished_timestamp_seconds', {})).toBe(0);
  });
});
