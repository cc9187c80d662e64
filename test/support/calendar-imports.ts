import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Database } from '../../src/db/dialect.js';
import type { Harness } from './harness.js';

/** A stored block as a test compares it: its event's UID and UTC interval. */
export interface StoredBlock {
  readonly uid: string;
  readonly start: string;
  readonly end: string;
}

/** A booking row of a product, as the capacity invariant counts it. */
export interface StoredBooking {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
  readonly status: string;
  readonly source: string;
  readonly uid: string | null;
  readonly importId: string | null;
  readonly etag: string;
}

/**
 * The calendar operations a test drives through one instance's `request` (the harness's or
 * a second instance's), with one token, and reads of what the database holds.
 */
export function calendarApi(request: Harness['request'], database: Database, token: string) {
  const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => request({ method, url, token, body, headers });
  const time = (value: unknown) => Date.parse(String(database.dialect.fromDb('timestamp', value)));

  /** Every booking row of a product (blocks and API bookings, any status), oldest first. */
  async function bookings(productId: string): Promise<StoredBooking[]> {
    const rows = await database.db
      .selectFrom('bookings')
      .select(['_id', 'start_time', 'end_time', 'quantity', 'status', 'source', 'external_uid', 'calendar_import_id', 'etag'])
      .where('product_id', '=', productId)
      .orderBy('_id')
      .execute();
    return rows.map((row) => ({
      id: String(row._id),
      start: time(row.start_time),
      end: time(row.end_time),
      quantity: Number(row.quantity),
      status: String(row.status),
      source: String(row.source),
      uid: (row.external_uid as string | null) ?? null,
      importId: (row.calendar_import_id as string | null) ?? null,
      etag: String(row.etag),
    }));
  }

  return {
    send,
    async product(totalItems: number, timeZone = 'Europe/Berlin'): Promise<string> {
      const created = await send('POST', '/v1/products', { name: 'Flat', address: 'Rua 1', city: 'Lisboa', zip_code: '1100', total_items: totalItems, time_zone: timeZone });
      expect(created.statusCode, created.body).toBe(201);
      return String(created.json()._id);
    },
    /** Creates an import (its first sync runs inside the request) and returns the answer. */
    async createImport(productId: string, url: string, extra: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
      return send('POST', `/v1/products/${productId}/calendar-imports`, { url, ...extra });
    },
    async sync(productId: string, importId: string): Promise<LightMyRequestResponse> {
      return send('POST', `/v1/products/${productId}/calendar-imports/${importId}/sync`);
    },
    bookings,
    /** The import's blocks that hold units, by start then UID. */
    async blocks(importId: string): Promise<StoredBlock[]> {
      const rows = await database.db.selectFrom('bookings').select(['external_uid', 'start_time', 'end_time']).where('calendar_import_id', '=', importId).where('status', '=', 'active').execute();
      return rows
        .map((row) => ({ uid: String(row.external_uid), start: new Date(time(row.start_time)).toISOString(), end: new Date(time(row.end_time)).toISOString() }))
        .sort((a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid));
    },
    /** The `calendars.*` outbox events of an import, by type. */
    async announced(importId: string, type: string): Promise<Record<string, unknown>[]> {
      const rows = await database.db.selectFrom('outbox_events').select(['type', 'data']).where('record_id', '=', importId).where('type', '=', type).orderBy('_id').execute();
      return rows.map((row) => (database.dialect.fromDb('object', row.data) as Record<string, unknown> | null) ?? {});
    },
  };
}

export type CalendarApi = ReturnType<typeof calendarApi>;

/**
 * The most units the rows hold at any instant (active bookings only: the tests' products
 * have no holds), by a sweep over every start and end.
 */
export function peakUnits(rows: readonly Pick<StoredBooking, 'start' | 'end' | 'quantity' | 'status'>[]): number {
  const edges = rows
    .filter((row) => row.status === 'active')
    .flatMap((row) => [
      { at: row.start, delta: row.quantity },
      { at: row.end, delta: -row.quantity },
    ]);
  // Ends before starts at the same instant: [a, b) and [b, c) never overlap.
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let held = 0;
  let peak = 0;
  for (const edge of edges) {
    held += edge.delta;
    peak = Math.max(peak, held);
  }
  return peak;
}
