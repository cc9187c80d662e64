/**
 * Bulk data for the list, export and erasure scenarios, inserted directly through Kysely in
 * transactions of 5 000 rows. Rows have the exact shape the resource service writes
 * (`recordToRow` over the API record plus a fresh `nextEtag`, as in ResourceService.create and
 * appendAudit); going through the service would add an audit entry and a reference check
 * per row and turn seconds into minutes.
 */
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../src/db/dialect.js';
import { storedFields } from '../src/db/schema.js';
import { getResource } from '../src/registry/index.js';
import type { ResourceDef } from '../src/registry/types.js';
import { nextEtag } from '../src/core/etag.js';
import { recordToRow } from '../src/data/record-codec.js';
import { normaliseBody } from '../src/services/normalise-body.js';

const transactionRows = 5_000;
// Multi-row INSERTs stay far below SQLite's 32 766 and PostgreSQL's 65 535 parameters.
const statementRows = 500;
const statuses = ['active', 'active', 'active', 'active', 'active', 'active', 'active', 'completed', 'completed', 'cancelled'];
const dayMs = 86_400_000;

/** Inserts `count` rows built by `make` into `table`; returns the seconds it took. */
export async function insertRows(database: Database, table: string, count: number, make: (index: number) => Record<string, unknown>): Promise<number> {
  const started = performance.now();
  for (let offset = 0; offset < count; offset += transactionRows) {
    const end = Math.min(count, offset + transactionRows);
    await database.db.transaction().execute(async (trx) => {
      for (let start = offset; start < end; start += statementRows) {
        const rows: Record<string, unknown>[] = [];
        for (let i = start; i < Math.min(end, start + statementRows); i += 1) rows.push(make(i));
        await trx.insertInto(table).values(rows).execute();
      }
    });
  }
  return (performance.now() - started) / 1000;
}

/** A booking as the API would hold it after a create: created over the last 60 days (inside audit retention), starting in 2026. */
function bookingRecord(tenantId: string, productIds: readonly string[], index: number, now: number): Record<string, unknown> {
  const createdMs = now - ((index * 7919) % (60 * dayMs));
  const start = Date.UTC(2026, 0, 1) + ((index * 104_729) % 365) * dayMs + (index % 24) * 3_600_000;
  const at = new Date(createdMs).toISOString();
  return {
    _id: uuidv7({ msecs: createdMs }),
    tenant_id: tenantId,
    created_at: at,
    updated_at: at,
    product_id: productIds[index % productIds.length] ?? null,
    user_id: null,
    start_time: new Date(start).toISOString(),
    end_time: new Date(start + (1 + (index % 72)) * 3_600_000).toISOString(),
    status: statuses[index % statuses.length],
    quantity: 1 + (index % 4),
    reference: `BK-${index}`,
    notes: null,
  };
}

/** Bookings of one tenant. */
export function seedBookings(database: Database, tenantId: string, productIds: readonly string[], count: number): Promise<number> {
  const bookings = getResource('bookings');
  const now = Date.now();
  return insertRows(database, bookings.table, count, (i) => {
    const record = bookingRecord(tenantId, productIds, i, now);
    return { ...recordToRow(bookings, database.dialect, record), etag: nextEtag(), deleted_at: null };
  });
}

/** Audit entries of one tenant: the `create` entries those bookings would have produced. */
export function seedAuditEntries(database: Database, tenantId: string, clientId: string, productIds: readonly string[], count: number): Promise<number> {
  const auditLogs = getResource('audit-logs');
  const now = Date.now();
  return insertRows(database, auditLogs.table, count, (i) => {
    const booking = bookingRecord(tenantId, productIds, i, now);
    const at = String(booking.created_at);
    const record = {
      _id: uuidv7({ msecs: Date.parse(at) }),
      tenant_id: tenantId,
      created_at: at,
      updated_at: at,
      category: 'data',
      actor_type: 'client',
      actor_id: clientId,
      client_ip: '127.0.0.1',
      request_id: randomUUID(),
      action: 'create',
      resource: 'bookings',
      record_id: booking._id,
      old_values: null,
      new_values: booking,
    };
    return { ...recordToRow(auditLogs, database.dialect, record), etag: nextEtag() };
  });
}

/** A stored record with every column (null unless given), as `UnitOfWork.insert` builds it. */
export function storedRow(resource: ResourceDef, database: Database, record: Record<string, unknown>): Record<string, unknown> {
  const full: Record<string, unknown> = { ...Object.fromEntries(storedFields(resource).map((name) => [name, null])), ...record };
  return { ...recordToRow(resource, database.dialect, full), etag: nextEtag(), deleted_at: null };
}

/** A user seeded by {@link seedUserWithBookings}, and the note each of its bookings carries (`<note> <n>`). */
export interface SeededUser {
  readonly userId: string;
  readonly note: string;
}

/**
 * A user of `tenantId` (a guest, with a name and an e-mail address) and `count` bookings of
 * it, each with a personal note, over `productIds`: one-night stays of the years before
 * 2026, `completed`, so they hold no unit anyone books today. `label` makes the user's values
 * its own. Inserted in bulk in the shape the service writes; a user who booked over years
 * has no outbox events left (they are removed a month after dispatch) and none are made.
 */
export async function seedUserWithBookings(database: Database, tenantId: string, productIds: readonly string[], count: number, label: string): Promise<SeededUser> {
  const users = getResource('users');
  const bookings = getResource('bookings');
  const now = Date.now();
  const at = new Date(now - 400 * dayMs).toISOString();
  const userId = uuidv7({ msecs: now - 400 * dayMs });
  const values = normaliseBody(users, { email: `${label}@erasure.example`, first_name: `First ${label}`, last_name: `Last ${label}` }, 'create');
  await insertRows(database, users.table, 1, () => storedRow(users, database, { ...values, _id: userId, tenant_id: tenantId, created_at: at, updated_at: at }));
  const note = `${label} asked for a quiet room`;
  await insertRows(database, bookings.table, count, (i) => {
    const created = now - 400 * dayMs + i * 60_000;
    const start = Date.UTC(2020, 0, 1) + (i % (6 * 365)) * dayMs + 15 * 3_600_000;
    const record = { _id: uuidv7({ msecs: created }), tenant_id: tenantId, created_at: new Date(created).toISOString(), updated_at: new Date(created).toISOString() };
    const booking = normaliseBody(
      bookings,
      {
        product_id: productIds[i % productIds.length],
        user_id: userId,
        start_time: new Date(start).toISOString(),
        end_time: new Date(start + 20 * 3_600_000).toISOString(),
        status: 'completed',
        notes: `${note} ${i}`,
      },
      'create',
    );
    return storedRow(bookings, database, { ...booking, ...record });
  });
  return { userId, note };
}
