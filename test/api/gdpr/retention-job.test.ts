import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { retentionSettingsFromConfig, runRetention } from '../../../src/gdpr/retention-job.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const day = 24 * 60 * 60 * 1000;
const auditCaps = ['audit-logs:list', 'audit-logs:read'];

describe('retention settings', () => {
  const base = { DATA_DIR: '/tmp/x' };
  it("keeps received webhook events 7 days and deleted tenants' contacts 30 days by default; both configurable, never under the contract's 7 days", () => {
    const defaults = retentionSettingsFromConfig(loadConfig(base));
    expect(defaults).toMatchObject({ receivedWebhookDays: 7, tenantContactDays: 30, audit: { data: 90, security: 90 } });
    expect(retentionSettingsFromConfig(loadConfig({ ...base, WEBHOOK_RECEIVED_RETENTION_DAYS: '14', TENANT_CONTACT_RETENTION_DAYS: '0' }))).toMatchObject({
      receivedWebhookDays: 14,
      tenantContactDays: 0,
    });
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
    tenantToken = await h.bearer(tenant, ['webhooks:create', 'webhooks:read']);
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
