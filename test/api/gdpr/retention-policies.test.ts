import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetentionPolicies } from '../../../src/gdpr/retention-policies.js';
import type { Clock } from '../../../src/core/clock.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const day = 86_400_000;
const timeRange = { start_time: '2030-01-01T10:00:00.000Z', end_time: '2030-01-02T10:00:00.000Z' };

// One story: a retention run applies every policy in the database, so the audit-category step
// runs after the record policies it would otherwise also apply. The steps keep their order
// under `--sequence.shuffle`.
describe('retention policies, step by step', { shuffle: false }, () => {
  describe.each(dialects)('retention policies on %s', (dialect) => {
    let h: Harness;
    const start = Date.now();
    let time = start;
    const clock: Clock = { now: () => (time += 1) };
    let token = '';
    const bookings: string[] = [];
    let userOld = '';
    let userNew = '';
    let held = '';

    async function post(resource: string, body: unknown): Promise<Record<string, unknown>> {
      const res = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as Record<string, unknown>;
    }
    const live = async (table: string) => (await h.database.db.selectFrom(table).select('_id').execute()).map((r) => String(r._id)).sort();

    beforeAll(async () => {
      h = await createHarness(dialect, { clock });
      const tenant = await h.tenant('T');
      const capabilities = [...['users', 'bookings', 'products', 'legal-holds', 'retention-policies'].flatMap(crud), 'users:read:email', 'users:write:email'];
      token = await h.bearer(tenant, capabilities);
      // The old records are made 40 days ago (the token, issued now, is still unexpired then).
      time = start - 40 * day;
      const product = await post('products', { name: 'P', address: 'a', city: 'c', zip_code: '1', total_items: 10 });
      userOld = String((await post('users', { email: 'old@example.com', first_name: 'Olga' }))._id);
      for (let i = 0; i < 4; i += 1) bookings.push(String((await post('bookings', { product_id: product._id, notes: `n${i}`, ...timeRange }))._id));
      held = bookings[1] ?? '';
      await post('legal-holds', { resource: 'bookings', record_id: held, reason: 'dispute' });
      // Deleted through the API back then: its `bookings.deleted` event went out at that time.
      const deleted = await h.request({ method: 'GET', url: `/v1/bookings/${bookings[3] ?? ''}`, token });
      expect((await h.request({ method: 'DELETE', url: `/v1/bookings/${bookings[3] ?? ''}`, token, headers: { 'if-match': String(deleted.headers.etag) } })).statusCode).toBe(204);
      time = start;
      userNew = String((await post('users', { email: 'new@example.com', first_name: 'Nina' }))._id);
    });
    afterAll(() => h.close());

    it('refuses categories the job cannot apply (400)', async () => {
      for (const body of [
        { category: 'nothing', retention_days: 1 },
        { category: 'security', retention_days: 1, action: 'anonymize' },
        { category: 'orders', retention_days: 1, action: 'anonymize' },
      ]) {
        const res = await h.request({ method: 'POST', url: '/v1/retention-policies', token, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
      }
    });

    it('previews, then deletes the due records and keeps the held one; anonymises old users only', async () => {
      const purge = await post('retention-policies', { category: 'bookings', retention_days: 30, action: 'delete' });
      const anonymise = await post('retention-policies', { category: 'users', retention_days: 30, action: 'anonymize' });
      const preview = await h.request({ method: 'GET', url: `/v1/retention-policies/${String(purge._id)}/preview`, token });
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toEqual({ due: 3, held: 1 });
      expect((await h.request({ method: 'GET', url: `/v1/retention-policies/${String(anonymise._id)}/preview`, token })).json()).toEqual({ due: 1, held: 0 });
      expect(await live('bookings')).toEqual([...bookings].sort());

      const dry = await applyRetentionPolicies(h.database, clock, { dryRun: true });
      expect(dry.map((r) => r.processed)).toEqual([3, 1]);
      expect(await live('bookings')).toEqual([...bookings].sort());

      const deletedEvents = async () =>
        (await h.database.db.selectFrom('outbox_events').select(['record_id', 'audit_id', 'data']).where('type', '=', 'bookings.deleted').orderBy('record_id').execute()).map((e) => ({
          record: String(e.record_id),
          audit: String(e.audit_id),
          data: h.database.dialect.fromDb('object', e.data) as Record<string, unknown>,
        }));
      expect((await deletedEvents()).map((e) => e.record)).toEqual([bookings[3]]);
      const runs = await applyRetentionPolicies(h.database, clock, { batchSize: 2 });
      expect(runs).toEqual([
        { policy: purge._id, category: 'bookings', action: 'delete', processed: 3, held: 1 },
        { policy: anonymise._id, category: 'users', action: 'anonymize', processed: 1, held: 0 },
      ]);
      expect(await live('bookings')).toEqual([held]);
      // One event per record the API still showed, with its last state and the purge's audit entry.
      const events = await deletedEvents();
      expect(events.map((e) => e.record)).toEqual([bookings[0], bookings[2], bookings[3]].sort());
      const purges = await h.database.db.selectFrom('audit_logs').select('_id').where('action', '=', 'retention_purged').execute();
      for (const event of events.filter((e) => e.record !== bookings[3])) {
        expect(purges.map((p) => String(p._id))).toContain(event.audit);
        expect(event.data).toMatchObject({ _id: event.record, notes: expect.stringMatching(/^n[02]$/) });
      }
      const old = (await h.request({ method: 'GET', url: `/v1/users/${userOld}`, token })).json();
      expect(old).toMatchObject({ email: '[erased]', first_name: '[erased]' });
      expect((await h.request({ method: 'GET', url: `/v1/users/${userNew}`, token })).json()).toMatchObject({ email: 'new@example.com', first_name: 'Nina' });
      const audited = await h.database.db.selectFrom('audit_logs').select(['action', 'new_values']).where('action', 'in', ['retention_purged', 'retention_anonymized']).execute();
      expect(audited.map((a) => a.action).sort()).toEqual(['retention_anonymized', 'retention_purged', 'retention_purged']);
      expect((await h.request({ method: 'GET', url: `/v1/retention-policies/${String(purge._id)}/preview`, token })).json()).toEqual({ due: 0, held: 1 });
      // A second run has nothing left to do.
      expect((await applyRetentionPolicies(h.database, clock)).map((r) => r.processed)).toEqual([0, 0]);
    });

    it('an audit-category policy purges the old entries of its tenant, except those about held records', async () => {
      const policy = await post('retention-policies', { category: 'data', retention_days: 30, action: 'delete' });
      const oldEntries = async () =>
        (
          await h.database.db
            .selectFrom('audit_logs')
            .select(['record_id'])
            .where('category', '=', 'data')
            .where('created_at', '<', h.database.dialect.toDb('timestamp', new Date(start - 30 * day).toISOString()) as string)
            .execute()
        ).map((r) => String(r.record_id));
      const before = await oldEntries();
      const aboutHeld = before.filter((id) => id === held).length;
      expect(aboutHeld).toBe(1);
      expect((await h.request({ method: 'GET', url: `/v1/retention-policies/${String(policy._id)}/preview`, token })).json()).toEqual({ due: before.length - aboutHeld, held: aboutHeld });
      const runs = await applyRetentionPolicies(h.database, clock);
      expect(runs.find((r) => r.policy === policy._id)).toEqual({ policy: policy._id, category: 'data', action: 'delete', processed: before.length - aboutHeld, held: aboutHeld });
      expect(await oldEntries()).toEqual([held]);
    });
  });
});
