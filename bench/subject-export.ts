/**
 * Subject export memory: `GET /v1/users/{id}/export` for users with 5 000 and 50 000
 * bookings (each with its sealed `create` audit entry), drained in-process through the same
 * generator the route streams. Reports bytes, time and the peak of RSS and V8 heap while
 * each export runs: flat memory means the 50 000 peak is no higher than the 5 000 one.
 *
 *   npx tsx bench/subject-export.ts [--rows 50000] [--small 5000]
 *
 * SQLite file in a temp directory; rows are inserted directly (as in bulk-seed.ts) in the
 * shape the service writes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { v7 as uuidv7 } from 'uuid';
import { seal, subjectKey } from '../src/data/subject-keys.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openSqlite } from '../src/db/sqlite.js';
import type { Database } from '../src/db/dialect.js';
import { subjectExport } from '../src/gdpr/subject-export.js';
import { getResource } from '../src/registry/index.js';
import { asSystem } from '../src/core/principal.js';
import { systemClock } from '../src/core/clock.js';
import { nextEtag } from '../src/core/etag.js';
import { resourceHooks } from '../src/container/resource-hooks.js';
import { recordToRow } from '../src/data/record-codec.js';
import { ResourceService } from '../src/services/resource-service.js';
import { machineInfo } from './machine.js';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '50000' }, small: { type: 'string', default: '5000' } } });
const bookings = getResource('bookings');
const auditLogs = getResource('audit-logs');
const users = getResource('users');

async function seedUser(database: Database, service: ResourceService, tenantId: string, productId: string, count: number): Promise<string> {
  const context = { principal: asSystem(), clientIp: null, requestId: null };
  const { record } = await service.create({ ...context, principal: { ...asSystem(), scope: { nodeId: tenantId, level: 'tenant', path: `/${tenantId}/` } } }, users, {
    email: `u${count}@example.com`,
    first_name: 'Bench',
  });
  const userId = String(record._id);
  const now = Date.now();
  for (let offset = 0; offset < count; offset += 5000) {
    await database.db.transaction().execute(async (trx) => {
      const { id: keyId, key } = await subjectKey(trx, database.dialect, userId, now);
      for (let start = offset; start < Math.min(count, offset + 5000); start += 250) {
        const rows: Record<string, unknown>[] = [];
        const audit: Record<string, unknown>[] = [];
        for (let i = start; i < Math.min(count, offset + 5000, start + 250); i += 1) {
          const at = new Date(now - (count - i) * 1000).toISOString();
          const booking = {
            _id: uuidv7({ msecs: Date.parse(at) }),
            tenant_id: tenantId,
            created_at: at,
            updated_at: at,
            product_id: productId,
            user_id: userId,
            start_time: '2030-01-01T10:00:00.000Z',
            end_time: '2030-01-02T10:00:00.000Z',
            status: 'active',
            quantity: 1,
            reference: `BK-${i}`,
            notes: `Guest note ${i}`,
          };
          rows.push({ ...recordToRow(bookings, database.dialect, booking), etag: nextEtag(), deleted_at: null });
          const entry = {
            _id: uuidv7({ msecs: Date.parse(at) }),
            tenant_id: tenantId,
            created_at: at,
            updated_at: at,
            category: 'data',
            actor_type: 'client',
            actor_id: 'bench',
            client_ip: '127.0.0.1',
            request_id: null,
            action: 'create',
            resource: 'bookings',
            record_id: booking._id,
            old_values: null,
            new_values: { ...booking, notes: seal(keyId, key, booking.notes) },
          };
          audit.push({ ...recordToRow(auditLogs, database.dialect, entry), etag: nextEtag() });
        }
        await trx.insertInto(bookings.table).values(rows).execute();
        await trx.insertInto(auditLogs.table).values(audit).execute();
      }
    });
  }
  return userId;
}

async function measure(service: ResourceService, tenantId: string, userId: string): Promise<{ seconds: number; megabytes: number; peakRssMb: number; peakHeapMb: number; rssBeforeMb: number }> {
  global.gc?.();
  const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const timer = setInterval(sample, 20);
  const started = performance.now();
  let bytes = 0;
  const context = { principal: { ...asSystem(), scope: { nodeId: tenantId, level: 'tenant' as const, path: `/${tenantId}/` } }, clientIp: null, requestId: null };
  for await (const chunk of await subjectExport(service, context, userId)) {
    bytes += Buffer.byteLength(chunk);
    sample();
  }
  clearInterval(timer);
  return { seconds: Math.round((performance.now() - started) / 10) / 100, megabytes: mb(bytes), peakRssMb: mb(peakRss), peakHeapMb: mb(peakHeap), rssBeforeMb: mb(before.rss) };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-subject-export-'));
const database = openSqlite(join(dir, 'bench.sqlite'));
try {
  await migrateToLatest(database);
  const service = new ResourceService(database, systemClock, resourceHooks());
  const system = { principal: asSystem(), clientIp: null, requestId: null };
  const tenant = await service.create(system, getResource('tenants'), { name: 'Bench', level: 'partner' });
  const tenantId = String(tenant.record._id);
  const inTenant = { ...system, principal: { ...asSystem(), scope: { nodeId: tenantId, level: 'partner' as const, path: `/${tenantId}/` } } };
  const product = await service.create(inTenant, getResource('products'), { name: 'P', address: 'a', city: 'c', zip_code: '1', total_items: 1 });
  const productId = String(product.record._id);
  const small = await seedUser(database, service, tenantId, productId, Number(args.small));
  const large = await seedUser(database, service, tenantId, productId, Number(args.rows));
  const results = {
    machine: machineInfo(),
    date: new Date().toISOString(),
    small: { bookings: Number(args.small), ...(await measure(service, tenantId, small)) },
    large: { bookings: Number(args.rows), ...(await measure(service, tenantId, large)) },
  };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
