import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { retentionSettingsFromConfig, runRetention } from '../../../src/gdpr/retention-job.js';
import { purgeDeliveryHistory } from '../../../src/webhooks/delivery-retention.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const day = 24 * 60 * 60 * 1000;
const auditCaps = ['audit-logs:list', 'audit-logs:read'];

describe('retention settings', () => {
  const base = { DATA_DIR: '/tmp/x' };
  it("keeps received webhook events 7 days and deleted tenants' contacts 30 days by default; both configurable, never under the contract's 7 days", () => {
    const defaults = retentionSettingsFromConfig(loadConfig(base));
    expect(defaults).toMatchObject({ receivedWebhookDays: 7, deliveryHistoryDays: 30, tenantContactDays: 30, audit: { data: 90, security: 90 } });
    expect(retentionSettingsFromConfig(loadConfig({ ...base, WEBHOOK_RECEIVED_RETENTION_DAYS: '14', WEBHOOK_DELIVERY_RETENTION_DAYS: '1', TENANT_CONTACT_RETENTION_DAYS: '0' }))).toMatchObject({
      receivedWebhookDays: 14,
      deliveryHistoryDays: 1,
      tenantContactDays: 0,
    });
    expect(() => loadConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS must be between 1 and/);
    expect(() => loadConfig({ ...base, WEBHOOK_RECEIVED_RETENTION_DAYS: '6' })).toThrow(/WEBHOOK_RECEIVED_RETENTION_DAYS must be between 7 and/);
    expect(() => loadConfig({ ...base, TENANT_CONTACT_RETENTION_DAYS: '-1' })).toThrow(/TENANT_CONTACT_RETENTION_DAYS must be a whole number/);
  });
});

describe.each(dialects)('the retention job on %s', (dialect) => {
  let h: Harness;
  let system: string;
  let tenantToken: string;
  let tenant: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    system = await h.bearer(null, [...crud('tenants'), ...auditCaps]);
    tenant = await h.tenant('Payments');
    tenantToken = await h.bearer(tenant, ['webhooks:create', 'webhooks:read', 'webhooks:retry']);
  });
  afterAll(() => h.close());

  /** One run of the job as it would run at `at`, with the harness's settings (or `overrides`). */
  const runAt = (at: number, overrides: Partial<ReturnType<typeof retentionSettingsFromConfig>> = {}) =>
    runRetention(h.database, { ...retentionSettingsFromConfig(h.config), ...overrides }, { now: () => at }, h.app.server.log);

  it('sweeps received webhook events older than WEBHOOK_RECEIVED_RETENTION_DAYS (7 by default)', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: tenantToken, body: { direction: 'incoming', scheme: 'stripe', secret: 'whsec_stripe_test_secret_0123456789' } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    const now = Date.now();
    for (const [eventId, age] of [
      ['evt_fresh', 0],
      ['evt_6d', 6 * day],
      ['evt_8d', 8 * day],
      ['evt_12d', 12 * day],
      ['evt_30d', 30 * day],
    ] as const) {
      await h.database.db
        .insertInto('webhook_received')
        .values({ webhook_id: hookId, event_id: eventId, fingerprint: 'f', state: 'done', type: 't', outcome: 'ignored', detail: null, received_at: now - age })
        .execute();
    }
    const kept = async () => (await h.database.db.selectFrom('webhook_received').select('event_id').where('webhook_id', '=', hookId).orderBy('event_id').execute()).map((row) => row.event_id);
    // Configured longer: only what is past that window goes.
    await runAt(now, { receivedWebhookDays: 10 });
    expect(await kept()).toEqual(['evt_6d', 'evt_8d', 'evt_fresh']);
    await runAt(now);
    expect(await kept()).toEqual(['evt_6d', 'evt_fresh']);
    // The API lists what is left.
    const listed = await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/received`, token: tenantToken });
    expect(listed.statusCode, listed.body).toBe(200);
    expect((listed.json().items as { _id: string }[]).map((item) => item._id).sort()).toEqual(['evt_6d', 'evt_fresh']);
  });

  it('removes finished deliveries with their attempts, then dispatched outbox events without deliveries, after WEBHOOK_DELIVERY_RETENTION_DAYS (30 by default); pending ones stay', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: tenantToken, body: { url: 'https://93.184.216.34/hook', events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    const now = Date.now();
    const at = (age: number) => h.database.dialect.toDb('timestamp', new Date(now - age).toISOString());
    // Finished or pending, last touched `age` ago; each with two attempts.
    const deliveries = [
      ['msg_fresh_ok', 'succeeded', 0],
      ['msg_29d_failed', 'failed', 29 * day],
      ['msg_31d_ok', 'succeeded', 31 * day],
      ['msg_45d_failed', 'failed', 45 * day],
      ['msg_60d_pending', 'pending', 60 * day],
      ['msg_40d_retried', 'failed', 40 * day],
    ] as const;
    for (const [id, status, age] of deliveries) {
      await h.database.db
        .insertInto('webhook_deliveries')
        .values({
          _id: id,
          tenant_id: tenant,
          webhook_id: hookId,
          event_id: `evt_${id}`,
          type: 'ping',
          payload: '{}',
          status,
          attempts: 2,
          last_status_code: null,
          last_error: null,
          next_attempt_at: null,
          created_at: at(age),
          updated_at: at(age),
        })
        .execute();
      for (const attempt of [1, 2])
        await h.database.db
          .insertInto('webhook_delivery_attempts')
          .values({
            _id: `${id}_${attempt}`,
            tenant_id: tenant,
            webhook_id: hookId,
            delivery_id: id,
            attempt,
            status_code: 500,
            error: null,
            started_at: at(age),
            finished_at: at(age),
            duration_ms: 1,
            created_at: at(age),
            updated_at: at(age),
          })
          .execute();
    }
    // A retry makes an old failed delivery pending again (and touches it): it stays.
    const retried = await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/deliveries/msg_40d_retried/retry`, token: tenantToken });
    expect(retried.statusCode, retried.body).toBe(202);
    // Outbox events: dispatched long ago, recently, and not yet (never removed); and the
    // events of three deliveries above, dispatched long ago. Erasure reaches a delivery's
    // payload through its event, so an event stays while a delivery of it does.
    for (const [id, dispatchedAge] of [
      ['evt_dispatched_31d', 31 * day],
      ['evt_dispatched_2d', 2 * day],
      ['evt_undispatched', null],
      ['evt_msg_60d_pending', 60 * day],
      ['evt_msg_45d_failed', 45 * day],
      ['evt_msg_29d_failed', 35 * day],
    ] as const) {
      await h.database.db
        .insertInto('outbox_events')
        .values({
          _id: id,
          created_at: at(40 * day),
          tenant_id: tenant,
          type: 'ping',
          resource: 'webhooks',
          record_id: hookId,
          audit_id: 'a',
          data: h.database.dialect.toDb('object', {}),
          dispatched_at: dispatchedAge === null ? null : at(dispatchedAge),
        })
        .execute();
    }
    const kept = async () => (await h.database.db.selectFrom('webhook_deliveries').select('_id').where('webhook_id', '=', hookId).orderBy('_id').execute()).map((row) => row._id);
    const attemptsKept = async () => (await h.database.db.selectFrom('webhook_delivery_attempts').select('delivery_id').where('webhook_id', '=', hookId).execute()).map((row) => row.delivery_id);
    const events = async () =>
      (await h.database.db.selectFrom('outbox_events').select('_id').where('record_id', '=', hookId).where('type', '=', 'ping').orderBy('_id').execute()).map((row) => row._id);

    // Configured longer: only what is past that window goes.
    await runAt(now, { deliveryHistoryDays: 40 });
    expect(await kept()).toEqual(['msg_29d_failed', 'msg_31d_ok', 'msg_40d_retried', 'msg_60d_pending', 'msg_fresh_ok']);
    await runAt(now);
    expect(await kept()).toEqual(['msg_29d_failed', 'msg_40d_retried', 'msg_60d_pending', 'msg_fresh_ok']);
    expect([...new Set(await attemptsKept())].sort()).toEqual(await kept());
    expect(await events()).toEqual(['evt_dispatched_2d', 'evt_msg_29d_failed', 'evt_msg_60d_pending', 'evt_undispatched']);
    // The API lists what is left.
    const listed = await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries?per_page=100`, token: tenantToken });
    expect(listed.statusCode, listed.body).toBe(200);
    expect((listed.json().items as { _id: string }[]).map((item) => item._id).sort()).toEqual(await kept());
  });

  it('removes more delivery history than one batch holds, in batches', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: tenantToken, body: { url: 'https://93.184.216.34/bulk', events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    const old = h.database.dialect.toDb('timestamp', new Date(Date.now() - 90 * day).toISOString());
    const rows = Array.from({ length: 1_234 }, (_, i) => ({
      _id: `msg_bulk_${String(i).padStart(5, '0')}`,
      tenant_id: tenant,
      webhook_id: hookId,
      event_id: `evt_bulk_${i}`,
      type: 'ping',
      payload: '{}',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      created_at: old,
      updated_at: old,
    }));
    for (let i = 0; i < rows.length; i += 50)
      await h.database.db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 50))
        .execute();
    const report = await purgeDeliveryHistory(h.database, Date.now(), 30);
    expect(report.deliveries).toBeGreaterThanOrEqual(1_234);
    expect(await h.database.db.selectFrom('webhook_deliveries').select('_id').where('webhook_id', '=', hookId).execute()).toEqual([]);
  });

  // SQLite has one writer: a retry and the purge cannot interleave there.
  it.runIf(dialect === 'postgres')('keeps a delivery retried while the purge waits for it, with its attempts', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: tenantToken, body: { url: 'https://93.184.216.34/race', events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    const old = h.database.dialect.toDb('timestamp', new Date(Date.now() - 90 * day).toISOString());
    await h.database.db
      .insertInto('webhook_deliveries')
      .values({
        _id: 'msg_race',
        tenant_id: tenant,
        webhook_id: hookId,
        event_id: 'evt_race',
        type: 'ping',
        payload: '{}',
        status: 'failed',
        attempts: 1,
        last_status_code: 500,
        last_error: null,
        next_attempt_at: null,
        created_at: old,
        updated_at: old,
      })
      .execute();
    await h.database.db
      .insertInto('webhook_delivery_attempts')
      .values({
        _id: 'msg_race_1',
        tenant_id: tenant,
        webhook_id: hookId,
        delivery_id: 'msg_race',
        attempt: 1,
        status_code: 500,
        error: null,
        started_at: old,
        finished_at: old,
        duration_ms: 1,
        created_at: old,
        updated_at: old,
      })
      .execute();
    await h.database.db.connection().execute(async (retrier) => {
      // A retry that has made the delivery pending but not committed yet.
      await sql`begin`.execute(retrier);
      await retrier
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', updated_at: h.database.dialect.toDb('timestamp', new Date().toISOString()) })
        .where('_id', '=', 'msg_race')
        .execute();
      // The purge read the delivery as failed and long finished; its delete waits for the retry's lock.
      const purge = purgeDeliveryHistory(h.database, Date.now(), 30);
      await expect
        .poll(
          async () =>
            (await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(h.database.db)).rows[0]
              ?.waiting,
          {
            timeout: 10_000,
          },
        )
        .toBe(1);
      await sql`commit`.execute(retrier);
      await purge;
    });
    const kept = await h.database.db.selectFrom('webhook_deliveries').select(['_id', 'status']).where('_id', '=', 'msg_race').execute();
    expect(kept).toEqual([{ _id: 'msg_race', status: 'pending' }]);
    expect(await h.database.db.selectFrom('webhook_delivery_attempts').select('_id').where('delivery_id', '=', 'msg_race').execute()).toEqual([{ _id: 'msg_race_1' }]);
  });

  it("removes sign-in challenges a day after they expired, and the daily caps' counters of days over for a day", async () => {
    const now = Date.now();
    const hour = 60 * 60 * 1000;
    const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    for (const daysAgo of [0, 1, 2, 3])
      await h.database.db
        .insertInto('otp_daily_counts')
        .values({ day: dayOf(now - daysAgo * day), channel: 'email', sent: 5 })
        .execute();
    for (const [id, expiredAgo] of [
      ['otp_live', -5 * 60 * 1000],
      ['otp_expired_1h', hour],
      ['otp_expired_25h', 25 * hour],
    ] as const) {
      await h.database.db
        .insertInto('otp_challenges')
        .values({
          _id: id,
          tenant_id: tenant,
          channel: 'email',
          destination_key: 'k',
          user_id: null,
          code_hash: 'h',
          attempts: 0,
          created_at: now - expiredAgo - 600_000,
          expires_at: now - expiredAgo,
          used_at: null,
        })
        .execute();
      await h.database.db
        .insertInto('mfa_challenges')
        .values({ token_hash: `mfa_${id}`, user_id: 'u', attempts: 0, expires_at: now - expiredAgo, used_at: null })
        .execute();
    }
    const report = await runAt(now);
    expect(report.signInChallenges).toEqual({ otp: 1, mfa: 1, dailyCounts: 2 });
    expect((await h.database.db.selectFrom('otp_challenges').select('_id').where('_id', 'like', 'otp_%').orderBy('_id').execute()).map((row) => row._id)).toEqual(['otp_expired_1h', 'otp_live']);
    expect((await h.database.db.selectFrom('mfa_challenges').select('token_hash').where('token_hash', 'like', 'mfa_otp_%').orderBy('token_hash').execute()).map((row) => row.token_hash)).toEqual([
      'mfa_otp_expired_1h',
      'mfa_otp_live',
    ]);
    // Today's counter is the one the cap reads; yesterday's ended less than a day ago.
    expect((await h.database.db.selectFrom('otp_daily_counts').select('day').orderBy('day', 'desc').execute()).map((row) => row.day)).toEqual([dayOf(now), dayOf(now - day)]);
  });

  it('erases the contact_email of a tenant node TENANT_CONTACT_RETENTION_DAYS after its deletion: row, audit values and outbox; live nodes keep theirs', async () => {
    const create = async (name: string, contact: string) => {
      const res = await h.request({ method: 'POST', url: '/v1/tenants', token: system, body: { name, contact_email: contact } });
      expect(res.statusCode, res.body).toBe(201);
      return { id: String(res.json()._id), etag: String(res.headers.etag) };
    };
    const gone = await create('Closed GmbH', 'closed.contact@example.test');
    const live = await create('Open GmbH', 'open.contact@example.test');
    const deleted = await h.request({ method: 'DELETE', url: `/v1/tenants/${gone.id}`, token: system, headers: { 'if-match': gone.etag } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const stored = async (id: string) => (await h.database.db.selectFrom('tenants').select(['contact_email', 'deleted_at']).where('_id', '=', id).executeTakeFirstOrThrow()).contact_email;
    const auditValues = async (id: string) => {
      const res = await h.request({ method: 'GET', url: `/v1/audit-logs?record_id=${id}&sort=created_at`, token: system });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items as { action: string; old_values: Record<string, unknown> | null; new_values: Record<string, unknown> | null }[];
    };
    const outbox = async (id: string) => JSON.stringify(await h.database.db.selectFrom('outbox_events').select('data').where('record_id', '=', id).execute());
    expect((await auditValues(gone.id))[0]?.new_values?.contact_email).toBe('closed.contact@example.test');

    // 29 days after the deletion: still within the window.
    await runAt(Date.now() + 29 * day);
    expect(await stored(gone.id)).toBe('closed.contact@example.test');
    // 31 days after: erased by the rule, and the trail's sealed copies with it.
    await runAt(Date.now() + 31 * day);
    expect(await stored(gone.id)).toBeNull();
    const trail = await auditValues(gone.id);
    expect(trail.map((entry) => entry.action)).toEqual(['create', 'delete', 'anonymize']);
    expect(trail[0]?.new_values?.contact_email).toBe('[erased]');
    expect(trail[1]?.old_values?.contact_email).toBe('[erased]');
    expect(trail[2]?.new_values).toEqual({ erased_fields: ['contact_email'], rule: 'TENANT_CONTACT_RETENTION_DAYS' });
    expect(await outbox(gone.id)).not.toContain('closed.contact@example.test');
    expect(JSON.stringify(trail)).not.toContain('closed.contact@example.test');
    // A live node keeps its contact however old it is.
    expect(await stored(live.id)).toBe('open.contact@example.test');
    expect((await auditValues(live.id))[0]?.new_values?.contact_email).toBe('open.contact@example.test');
    // A second run finds nothing left to change.
    await runAt(Date.now() + 40 * day);
    expect((await auditValues(gone.id)).map((entry) => entry.action)).toEqual(['create', 'delete', 'anonymize']);
  });
});
