import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSystem } from '../../../src/core/principal.js';
import { appendAudit } from '../../../src/data/audit-trail.js';
import { purgeExpiredAudit } from '../../../src/services/audit-retention.js';
import type { Clock } from '../../../src/core/clock.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const day = 86_400_000;

// One story on one set of entries: the purge, then that a second purge finds nothing, then a
// hold. Each step starts where the one before left off, so the steps keep their order under
// `--sequence.shuffle`.
describe('audit retention, step by step', { shuffle: false }, () => {
  describe.each(dialects)('audit retention on %s', (dialect) => {
    let h: Harness;
    const start = Date.now();
    let time = start;
    const clock: Clock = { now: () => time };
    const context = { principal: asSystem(), clientIp: null, requestId: null };
    let heldId = '';

    async function entry(category: 'data' | 'security', ageDays: number, recordId = `r-${category}-${ageDays}`): Promise<void> {
      await h.database.db
        .transaction()
        .execute((trx) =>
          appendAudit(trx, h.database.dialect, context, { category, action: 'test', resource: 'products', recordId, tenantId: null, oldValues: null, newValues: null }, start - ageDays * day),
        );
    }

    async function remaining(): Promise<string[]> {
      const rows = await h.database.db.selectFrom('audit_logs').select(['category', 'record_id']).where('action', '=', 'test').execute();
      return rows.map((r) => `${String(r.category)}:${String(r.record_id)}`).sort();
    }

    beforeAll(async () => {
      h = await createHarness(dialect, { clock });
      for (const age of [1, 29, 31, 89, 91, 400]) {
        await entry('data', age);
        await entry('security', age);
      }
      const tenant = await h.tenant('A');
      const token = await h.bearer(tenant, [...crud('legal-holds'), 'products:create']);
      const product = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Held', address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
      heldId = String(product.json()._id);
      await entry('data', 200, heldId);
      const hold = await h.request({ method: 'POST', url: '/v1/legal-holds', token, body: { resource: 'products', record_id: heldId, reason: 'case 42' } });
      expect(hold.statusCode).toBe(201);
      const elsewhere = await h.bearer(await h.tenant('B'), crud('legal-holds'));
      const foreign = await h.request({ method: 'POST', url: '/v1/legal-holds', token: elsewhere, body: { resource: 'products', record_id: heldId, reason: 'not yours' } });
      expect(foreign.statusCode).toBe(400);
    });
    afterAll(() => h.close());

    it('purges exactly the entries older than their category retention, sparing legal holds', async () => {
      const batches: number[] = [];
      const report = await purgeExpiredAudit(h.database, { data: 90, security: 30 }, start, { batchSize: 2, onBatch: (_c, n) => batches.push(n) });
      expect(report.purged).toEqual({ data: 2, security: 4 });
      expect(batches.every((n) => n <= 2)).toBe(true);
      // Each batch leaves a record of itself in the trail.
      const purges = await h.database.db.selectFrom('audit_logs').selectAll().where('action', '=', 'audit_purged').execute();
      expect(purges).toHaveLength(batches.length);
      expect(purges.every((row) => row.category === 'security' && row.actor_type === 'system')).toBe(true);
      expect(await remaining()).toEqual([`data:${heldId}`, 'data:r-data-1', 'data:r-data-29', 'data:r-data-31', 'data:r-data-89', 'security:r-security-1', 'security:r-security-29']);
    });

    it('is idempotent and leaves the append-only protection in force afterwards', async () => {
      const again = await purgeExpiredAudit(h.database, { data: 90, security: 30 }, start);
      expect(again.purged).toEqual({ data: 0, security: 0 });
      await expect(h.database.db.deleteFrom('audit_logs').where('action', '=', 'test').execute()).rejects.toThrow(/append-only/);
    });

    it('honours a legal hold until it expires or is deleted', async () => {
      time = start + 1000;
      const token = await h.bearer(null, crud('legal-holds'));
      const holds = await h.request({ method: 'GET', url: '/v1/legal-holds', token });
      const hold = (holds.json().items as { _id: string }[])[0];
      const read = await h.request({ method: 'GET', url: `/v1/legal-holds/${hold?._id}`, token });
      const removed = await h.request({ method: 'DELETE', url: `/v1/legal-holds/${hold?._id}`, token, headers: { 'if-match': String(read.headers.etag) } });
      expect(removed.statusCode).toBe(204);
      const report = await purgeExpiredAudit(h.database, { data: 90, security: 30 }, start);
      expect(report.purged.data).toBe(1);
      expect(await remaining()).not.toContain(`data:${heldId}`);
    });
  });
});
