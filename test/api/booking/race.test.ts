import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * The check-then-insert race of booking systems, provoked: many requests for the same
 * last units at once. On PostgreSQL the app's pool runs them on separate connections, so
 * without the product lock several would see the unit free and all insert.
 */
describe.each(dialects)('parallel bookings on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    // The requests queue on the product's lock one transaction at a time; on a busy machine
    // the last of 100 waits longer than the default 5 s statement timeout and would get a
    // 503. The race is the subject here, not the timeout: give the queue room.
    h = await createHarness(dialect, { database: { statementTimeoutMs: 60_000 } });
    token = await h.bearer(await h.tenant('Race'), [...crud('products'), ...crud('bookings')]);
  });
  afterAll(() => h.close());

  const product = async (total: number) =>
    String((await h.request({ method: 'POST', url: '/v1/products/', token, body: { name: 'Last', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: total } })).json()._id);
  const book = (productId: string, body: Record<string, unknown>) => h.request({ method: 'POST', url: '/v1/bookings/', token, body: { product_id: productId, ...body } });
  const stored = async (productId: string) => (await h.database.db.selectFrom('bookings').select(['_id', 'quantity']).where('product_id', '=', productId).execute()).length;

  it('gives the last unit to exactly one of 100 parallel requests', async () => {
    const p = await product(1);
    const answers = await Promise.all(Array.from({ length: 100 }, () => book(p, { start_time: '2030-06-01T15:00:00Z', end_time: '2030-06-02T11:00:00Z' })));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(99);
    expect(await stored(p)).toBe(1);
  });

  it('never holds more than total_items when overlapping requests of several sizes race', async () => {
    const p = await product(5);
    // Staggered intervals overlap in chains: any two adjacent ones share an hour.
    const bodies = Array.from({ length: 60 }, (_, i) => ({
      start_time: new Date(Date.UTC(2030, 6, 1, i % 6)).toISOString(),
      end_time: new Date(Date.UTC(2030, 6, 1, (i % 6) + 2)).toISOString(),
      quantity: 1 + (i % 3),
    }));
    const answers = await Promise.all(bodies.map((body) => book(p, body)));
    expect(answers.every((a) => a.statusCode === 201 || a.statusCode === 409)).toBe(true);
    const rows = await h.database.db.selectFrom('bookings').select(['start_time', 'end_time', 'quantity']).where('product_id', '=', p).execute();
    for (let hour = 0; hour < 8; hour += 1) {
      const at = Date.UTC(2030, 6, 1, hour);
      const held = rows.filter((r) => Date.parse(String(r.start_time)) <= at && at < Date.parse(String(r.end_time))).reduce((sum, r) => sum + Number(r.quantity), 0);
      expect(held).toBeLessThanOrEqual(5);
    }
    // Capacity is used, not refused wholesale: the first hour alone fits five units.
    expect(answers.filter((a) => a.statusCode === 201).length).toBeGreaterThan(1);
  });

  it('answers each refusal from one state while the bookings it counts are deleted', async () => {
    const total = 10;
    const p = await product(total);
    const slot = { start_time: '2030-09-01T10:00:00Z', end_time: '2030-09-01T12:00:00Z' };
    const held = await Promise.all(Array.from({ length: total }, () => book(p, slot)));
    // One delete after the other, so they land between the queued creates' reads.
    const deleteAll = async () => {
      const statuses: number[] = [];
      for (const b of held) statuses.push((await h.request({ method: 'DELETE', url: `/v1/bookings/${String(b.json()._id)}`, token, headers: { 'if-match': String(b.headers.etag) } })).statusCode);
      return statuses;
    };
    const [deleted, ...answers] = await Promise.all([deleteAll(), ...Array.from({ length: 40 }, () => book(p, slot))]);
    expect(deleted).toEqual(Array.from({ length: total }, () => 204));
    // One interval for all: the peak is the number of live bookings, each named a conflict.
    for (const refused of answers.filter((a) => a.statusCode === 409)) {
      const { available, conflicts } = refused.json<{ available: number; conflicts: string[] }>();
      expect(available, refused.body).toBe(total - conflicts.length);
    }
  });

  it('lets exactly one of 50 parallel reactivations take the freed unit', async () => {
    const p = await product(1);
    const cancelled: { id: string; etag: string }[] = [];
    for (let i = 0; i < 50; i += 1) {
      const created = await book(p, { start_time: '2030-08-01T10:00:00Z', end_time: '2030-08-01T12:00:00Z', status: 'cancelled' });
      cancelled.push({ id: String(created.json()._id), etag: String(created.headers.etag) });
    }
    const answers = await Promise.all(cancelled.map(({ id, etag }) => h.request({ method: 'PATCH', url: `/v1/bookings/${id}`, token, body: { status: 'active' }, headers: { 'if-match': etag } })));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(49);
  });
});
