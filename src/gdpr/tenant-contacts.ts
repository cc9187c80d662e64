import { rewriteOutboxData } from '../data/outbox.js';
import { destroySubjectKeys } from '../data/subject-keys.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { Database } from '../db/dialect.js';
import { erasureChanges } from '../derive/erasure.js';
import { getResource } from '../registry/index.js';
import { asSystem } from '../core/principal.js';
import type { Clock } from '../core/clock.js';
import { rowToRecord } from '../data/record-codec.js';
import type { Row } from '../data/record-codec.js';

const tenants = getResource('tenants');
const batchSize = 500;

/**
 * The erasure rule of a tenant node's personal data (`contact_email`): no user references a
 * tenant, so user erasure never reaches it. While the node lives, the contact is kept (the
 * operator's correspondent) and changed by an ordinary update; once the node is deleted,
 * the retention job depersonalises it `days` after the deletion — the registry's erasure
 * rules applied to the stored row, the node's audit data key destroyed (its sealed
 * `contact_email` values read `[erased]`), and its outbox events and webhook delivery
 * bodies rewritten. Each node gets an audit entry `anonymize` naming the fields. Returns
 * how many nodes were depersonalised.
 */
export async function clearDeletedTenantContacts(database: Database, clock: Clock, days: number): Promise<number> {
  const now = clock.now();
  const cutoff = database.dialect.toDb('timestamp', new Date(now - days * 86_400_000).toISOString());
  const fixed: Clock = { now: () => now };
  let total = 0;
  for (;;) {
    const done = await runUnitOfWork(database, fixed, { principal: asSystem(), clientIp: null, requestId: null }, async (unit) => {
      const rows = (await unit
        .scoped(tenants, { includeDeleted: true })
        .selectAll()
        .where('deleted_at', 'is not', null)
        .where('deleted_at', '<', cutoff)
        .where('contact_email', 'is not', null)
        .orderBy('_id')
        .limit(batchSize)
        .execute()) as Row[];
      for (const row of rows) {
        const changes = erasureChanges(tenants, rowToRecord(tenants, unit.dialect, row));
        await unit.update(tenants, row, String(row.etag), changes, {
          action: 'anonymize',
          audit: { old: null, new: { erased_fields: Object.keys(changes).sort(), rule: 'TENANT_CONTACT_RETENTION_DAYS' } },
        });
      }
      const ids = rows.map((row) => String(row._id));
      await rewriteOutboxData(unit.trx, unit.dialect, tenants.name, ids, (data) => ({ ...data, ...erasureChanges(tenants, data) }));
      await destroySubjectKeys(
        unit.trx,
        unit.dialect,
        ids.map((id) => `${tenants.name}/${id}`),
        now,
      );
      return rows.length;
    });
    total += done;
    if (done < batchSize) return total;
  }
}
