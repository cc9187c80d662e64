import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const day = (d: number, h = 0) => new Date(Date.UTC(2030, 0, d, h)).toISOString();

describe.each(dialects)('booking capacity on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let otherTenantToken: string;
  let tenant: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    tenant = await h.tenant('Capacity');
    token = await h.bearer(tenant, [...crud('products'), ...crud('bookings')]);
    otherTenantToken = await h.bearer(await h.tenant('Elsewhere'), crud('bookings'));
  });
  afterAll(() => h.close());

  async function product(total: number, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await h.request({ method: 'POST', url: '/v1/products/', token, body: { name: 'Room', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: total, ...extra } });
    expect(created.statusCode).toBe(201);
    return String(created.json()._id);
  }
  const book = (productId: string, start: string, end: string, extra: Record<string, unknown> = {}, as = token) =>
    h.request({ method: 'POST', url: '/v1/bookings/', token: as, body: { product_id: productId, start_time: start, end_time: end, ...extra } });
  async function booked(productId: string, start: string, end: string, extra: Record<string, unknown> = {}) {
    const response = await book(productId, start, end, extra);
    expect(response.statusCode, response.body).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag) };
  }
  const patch = (id: string, etag: string, body: Record<string, unknown>, url = 'bookings') => h.request({ method: 'PATCH', url: `/v1/${url}/${id}`, token, body, headers: { 'if-match': etag } });
  const trail = async (resource: string) => (await h.database.db.selectFrom('audit_logs').select('_id').where('resource', '=', resource).execute()).length;
  const events = async () => (await h.database.db.selectFrom('outbox_events').selectAll().execute()).length;

  it('books up to total_items and refuses the next unit with available and conflicts, writing nothing', async () => {
    const p = await product(2);
    const a = await booked(p, day(1, 10), day(3, 10));
    const b = await booked(p, day(2, 10), day(4, 10));
    const [audits, outbox] = [await trail('bookings'), await events()];
    const refused = expectProblem(await book(p, day(2, 12), day(2, 13)), 409, 'capacity_exceeded');
    expect(refused.available).toBe(0);
    expect(refused.conflicts).toEqual([a.id, b.id]);
    expect(await trail('bookings')).toBe(audits);
    expect(await events()).toBe(outbox);
    const list = await h.request({ method: 'GET', url: `/v1/bookings/?product_id=${p}`, token });
    expect(list.json().total).toBe(2);
  });

  it('keeps idempotency keys, audit entries and events for bookings', async () => {
    const p = await product(1);
    const body = { product_id: p, start_time: day(10), end_time: day(11) };
    const headers = { 'idempotency-key': `capacity-${dialect}` };
    const first = await h.request({ method: 'POST', url: '/v1/bookings/', token, body, headers });
    expect(first.statusCode).toBe(201);
    const replay = await h.request({ method: 'POST', url: '/v1/bookings/', token, body, headers });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.json()._id).toBe(first.json()._id);
    const id = String(first.json()._id);
    const audited = await h.database.db.selectFrom('audit_logs').select('action').where('record_id', '=', id).execute();
    expect(audited.map((a) => a.action)).toEqual(['create']);
    const types = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', id).execute();
    expect(types.map((t) => t.type)).toEqual(['bookings.created']);
    const cancelled = await patch(id, String(first.headers.etag), { status: 'cancelled' });
    expect(cancelled.statusCode).toBe(200);
    const after = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', id).execute();
    expect(after.map((t) => t.type).sort()).toEqual(['bookings.created', 'bookings.updated']);
  });

  it('treats intervals as half-open: touching bookings do not overlap', async () => {
    const p = await product(1);
    await booked(p, day(1, 10), day(1, 12));
    await booked(p, day(1, 12), day(1, 14));
    await booked(p, day(1, 8), day(1, 10));
    expectProblem(await book(p, day(1, 11), day(1, 13)), 409, 'capacity_exceeded');
  });

  it('counts quantity and reports the fewest free units of the interval', async () => {
    const p = await product(5);
    await booked(p, day(1), day(3), { quantity: 2 });
    await booked(p, day(2), day(4), { quantity: 2 });
    // Day 2 holds 4 of 5 units, days 1 and 3 hold 2.
    const refused = expectProblem(await book(p, day(1), day(4), { quantity: 2 }), 409, 'capacity_exceeded');
    expect(refused.available).toBe(1);
    await booked(p, day(1), day(4), { quantity: 1 });
    await booked(p, day(4), day(5), { quantity: 5 });
  });

  it('frees units on cancel and checks capacity again on reactivation', async () => {
    const p = await product(1);
    const first = await booked(p, day(1), day(2));
    const cancelled = await patch(first.id, first.etag, { status: 'cancelled' });
    expect(cancelled.statusCode).toBe(200);
    const second = await booked(p, day(1), day(2));
    const reactivated = expectProblem(await patch(first.id, String(cancelled.headers.etag), { status: 'active' }), 409, 'capacity_exceeded');
    expect(reactivated.conflicts).toEqual([second.id]);
    const cancelSecond = await patch(second.id, second.etag, { status: 'cancelled' });
    expect(cancelSecond.statusCode).toBe(200);
    expect((await patch(first.id, String(cancelled.headers.etag), { status: 'active' })).statusCode).toBe(200);
  });

  it('checks a move or an enlargement, not counting the booking itself', async () => {
    const p = await product(2);
    const mine = await booked(p, day(1), day(2));
    const other = await booked(p, day(3), day(4), { quantity: 2 });
    const grown = await patch(mine.id, mine.etag, { quantity: 2 });
    expect(grown.statusCode).toBe(200);
    const moved = expectProblem(await patch(mine.id, String(grown.headers.etag), { end_time: day(3, 1) }), 409, 'capacity_exceeded');
    expect(moved).toMatchObject({ available: 0, conflicts: [other.id] });
    expect((await patch(mine.id, String(grown.headers.etag), { end_time: day(3) })).statusCode).toBe(200);
  });

  it("looks back as far as the product's longest booking, and 366 days where none is recorded", async () => {
    const p = await product(1);
    for (let d = 10; d < 14; d += 1) await booked(p, day(d, 9), day(d, 10));
    // A month-long booking after hour-long ones: checks inside it must still find it.
    const long = await booked(p, day(15), day(45));
    const inside = expectProblem(await book(p, day(40, 9), day(40, 10)), 409, 'capacity_exceeded');
    expect(inside.conflicts).toEqual([long.id]);
    // Without a recorded span (rows loaded in bulk), the full 366 days are searched.
    await h.database.db.deleteFrom('product_booking_spans').where('product_id', '=', p).execute();
    expectProblem(await book(p, day(44, 9), day(44, 10)), 409, 'capacity_exceeded');
    const slots = await h.request({ method: 'GET', url: `/v1/products/${p}/availability?from=2030-02-13&to=2030-02-15`, token });
    expect(slots.json().slots.map((slot: { booked: number }) => slot.booked)).toEqual([1, 0]);
  });

  it('refuses lowering total_items below what future bookings hold', async () => {
    const p = await product(3);
    const read = await h.request({ method: 'GET', url: `/v1/products/${p}`, token });
    await booked(p, day(1), day(2), { quantity: 2 });
    const lowered = expectProblem(await patch(p, String(read.headers.etag), { total_items: 1 }, 'products'), 409, 'capacity_exceeded');
    expect(lowered.conflicts).toHaveLength(1);
    expect((await patch(p, String(read.headers.etag), { total_items: 2 }, 'products')).statusCode).toBe(200);
  });

  it('names only the conflicting bookings the caller may read', async () => {
    const p = await product(1);
    const partner = await h.tenant('Partner', 'partner');
    const child = await h.tenant('Child', 'tenant', partner);
    const partnerToken = await h.bearer(partner, crud('bookings'));
    const childProductToken = await h.bearer(child, [...crud('products'), ...crud('bookings')]);
    const created = await h.request({ method: 'POST', url: '/v1/products/', token: childProductToken, body: { name: 'Shared', address: 'A 1', city: 'Bonn', zip_code: '53111', total_items: 1 } });
    const shared = String(created.json()._id);
    const fromPartner = await book(shared, day(1), day(2), {}, partnerToken);
    expect(fromPartner.statusCode).toBe(201);
    const childSees = expectProblem(await book(shared, day(1), day(2), {}, childProductToken), 409, 'capacity_exceeded');
    expect(childSees.conflicts).toEqual([]);
    expect(childSees.available).toBe(0);
    // The other tenant cannot book a product outside its reach at all.
    expectProblem(await book(p, day(1), day(2), {}, otherTenantToken), 400, 'validation_failed');
    // A caller of the booking's own tenant that may create bookings but not read them is named none.
    const mine = await booked(p, day(1), day(2));
    const writeOnly = await h.bearer(tenant, ['bookings:create']);
    const blind = expectProblem(await book(p, day(1), day(2), {}, writeOnly), 409, 'capacity_exceeded');
    expect(blind.conflicts).toEqual([]);
    expect(blind.available).toBe(0);
    const reader = expectProblem(await book(p, day(1), day(2), {}, token), 409, 'capacity_exceeded');
    expect(reader.conflicts).toEqual([mine.id]);
  });

  it('refuses new, moved, enlarged or reactivated bookings of a product in maintenance or retired; shrinking still works', async () => {
    const p = await product(3);
    const existing = await booked(p, day(1), day(2), { quantity: 2 });
    const read = await h.request({ method: 'GET', url: `/v1/products/${p}`, token });
    expect((await patch(p, String(read.headers.etag), { status: 'maintenance' }, 'products')).statusCode).toBe(200);
    expectProblem(await book(p, day(5), day(6)), 409, 'product_unavailable');
    // No new booking at all, not even one created cancelled.
    expectProblem(await book(p, day(5), day(6), { status: 'cancelled' }), 409, 'product_unavailable');
    expectProblem(await patch(existing.id, existing.etag, { end_time: day(3) }), 409, 'product_unavailable');
    expectProblem(await patch(existing.id, existing.etag, { start_time: day(1, 12), end_time: day(2, 12) }), 409, 'product_unavailable');
    expectProblem(await patch(existing.id, existing.etag, { quantity: 3 }), 409, 'product_unavailable');
    // Shorter, inside the old interval, and fewer units: nothing is held that was not before.
    const shortened = await patch(existing.id, existing.etag, { start_time: day(1, 6), end_time: day(1, 18) });
    expect(shortened.statusCode, shortened.body).toBe(200);
    const fewer = await patch(existing.id, String(shortened.headers.etag), { quantity: 1 });
    expect(fewer.statusCode, fewer.body).toBe(200);
    const cancelled = await patch(existing.id, String(fewer.headers.etag), { status: 'cancelled' });
    expect(cancelled.statusCode).toBe(200);
    expectProblem(await patch(existing.id, String(cancelled.headers.etag), { status: 'active' }), 409, 'product_unavailable');
  });

  it('lets a booking shrink even where the product holds more than it now has', async () => {
    // Past bookings may exceed a lowered total_items (only future holdings are checked).
    const p = await product(3);
    const past = (hour: number) => new Date(Date.UTC(2020, 0, 1, hour)).toISOString();
    const big = await booked(p, past(0), past(24), { quantity: 2 });
    await booked(p, past(0), past(24));
    const read = await h.request({ method: 'GET', url: `/v1/products/${p}`, token });
    expect((await patch(p, String(read.headers.etag), { total_items: 1 }, 'products')).statusCode).toBe(200);
    const shortened = await patch(big.id, big.etag, { end_time: past(12) });
    expect(shortened.statusCode, shortened.body).toBe(200);
    // Growing it again is a change the invariant judges.
    expectProblem(await patch(big.id, String(shortened.headers.etag), { end_time: past(24) }), 409, 'capacity_exceeded');
  });

  it('follows the lifecycle and names the allowed next states', async () => {
    const p = await product(3);
    const b = await booked(p, day(1), day(2));
    const done = await patch(b.id, b.etag, { status: 'completed' });
    expect(done.statusCode).toBe(200);
    const final = expectProblem(await patch(b.id, String(done.headers.etag), { status: 'active' }), 409, 'invalid_transition');
    expect(final.allowed).toEqual([]);
    const c = await booked(p, day(1), day(2));
    const cancelled = await patch(c.id, c.etag, { status: 'cancelled' });
    const refused = expectProblem(await patch(c.id, String(cancelled.headers.etag), { status: 'completed' }), 409, 'invalid_transition');
    expect(refused.allowed).toEqual(['active']);
  });

  it('refuses an empty, reversed or longer-than-366-day period with 400', async () => {
    const p = await product(3);
    expectProblem(await book(p, day(2), day(2)), 400, 'validation_failed');
    expectProblem(await book(p, day(3), day(2)), 400, 'validation_failed');
    expectProblem(await book(p, day(1), day(368)), 400, 'validation_failed');
    expect((await book(p, day(1), day(367))).statusCode).toBe(201);
  });
});
