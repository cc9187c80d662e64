import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * An order's booking is the same stay for the same user (docs/selling.md "Orders"): a PATCH
 * that gives the order another user gives its booking that user in the same transaction,
 * alone or with a cancel, so neither a user's bookings nor its erasure miss the stay.
 */
describe.each(dialects)("an order's user on %s", (dialect) => {
  let h: Harness;
  let token: string;
  let product: string;
  const users: string[] = [];

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Reassign'), [...crud('products'), ...crud('orders'), ...crud('bookings'), ...crud('users'), 'users:write:email', 'audit-logs:list']);
    product = String(
      (await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Flat', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: 5, price: 80 } })).json()._id,
    );
    for (const email of ['first@buyers.test', 'second@buyers.test']) {
      const created = await h.request({ method: 'POST', url: '/v1/users', token, body: { email } });
      expect(created.statusCode, created.body).toBe(201);
      users.push(String(created.json()._id));
    }
  });
  afterAll(() => h.close());

  const order = async (day: string) => {
    const reply = await h.request({
      method: 'POST',
      url: '/v1/orders',
      token,
      body: { product_id: product, user_id: users[0], start_time: `2031-05-${day}T15:00:00Z`, end_time: `2031-05-${day}T23:00:00Z` },
    });
    expect(reply.statusCode, reply.body).toBe(201);
    return reply.json() as { _id: string; booking_id: string };
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const read = await h.request({ method: 'GET', url: `/v1/orders/${id}`, token });
    return h.request({ method: 'PATCH', url: `/v1/orders/${id}`, token, body, headers: { 'if-match': String(read.headers.etag) } });
  };
  const booking = async (id: string) => (await h.request({ method: 'GET', url: `/v1/bookings/${id}`, token })).json();

  it('moves the booking to the new user, audited as a change of the booking', async () => {
    const o = await order('10');
    expect((await booking(o.booking_id)).user_id).toBe(users[0]);
    const reply = await patch(o._id, { user_id: users[1] });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.json().user_id).toBe(users[1]);
    const b = await booking(o.booking_id);
    expect(b).toMatchObject({ user_id: users[1], status: 'held' });
    const trail = (await h.request({ method: 'GET', url: `/v1/audit-logs?resource=bookings&record_id=${o.booking_id}`, token })).json();
    expect(trail.items.map((entry: { action: string }) => entry.action).sort()).toEqual(['create', 'update']);
  });

  it('clears the booking user with the order, and cancels and reassigns in one PATCH', async () => {
    const o = await order('11');
    expect((await patch(o._id, { user_id: null })).statusCode).toBe(200);
    expect((await booking(o.booking_id)).user_id).toBeNull();
    const reply = await patch(o._id, { user_id: users[1], status: 'cancelled' });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(await booking(o.booking_id)).toMatchObject({ user_id: users[1], status: 'cancelled' });
  });

  it('leaves the booking alone when the user does not change', async () => {
    const o = await order('12');
    const before = await h.request({ method: 'GET', url: `/v1/bookings/${o.booking_id}`, token });
    expect((await patch(o._id, { user_id: users[0] })).statusCode).toBe(200);
    const after = await h.request({ method: 'GET', url: `/v1/bookings/${o.booking_id}`, token });
    expect(after.headers.etag).toBe(before.headers.etag);
  });
});
