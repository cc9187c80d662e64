import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * An erasure reaches every record that names the user, wherever it lives, but answers only
 * for the caller's reach (docs/gdpr.md): a record of a parent tenant the caller cannot read
 * is erased, and not counted, so the answer tells the caller nothing about it.
 */
describe.each(dialects)('the counts an erasure answers on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(dialect);
  });
  afterAll(() => h.close());

  it('counts only the records in reach, and erases the others all the same', async () => {
    const parent = await h.tenant('Parent', 'parent_tenant');
    const child = await h.tenant('Child', 'tenant', parent);
    const inChild = await h.bearer(child, ['users:create', 'users:write:email', 'users:erase', 'users:read', ...crud('products'), ...crud('bookings')]);
    const inParent = await h.bearer(parent, [...crud('products'), ...crud('bookings')]);
    const user = String((await h.request({ method: 'POST', url: '/v1/users', token: inChild, body: { email: 'reach@example.com', first_name: 'Rita' } })).json()._id);
    const product = (token: string) => h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 5 } });
    const book = async (token: string, productId: string) =>
      h.request({
        method: 'POST',
        url: '/v1/bookings',
        token,
        body: { product_id: productId, user_id: user, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z', notes: 'Rita, room 4' },
      });
    const childBooking = await book(inChild, String((await product(inChild)).json()._id));
    expect(childBooking.statusCode, childBooking.body).toBe(201);
    const parentBooking = await book(inParent, String((await product(inParent)).json()._id));
    expect(parentBooking.statusCode, parentBooking.body).toBe(201);
    const erased = await h.request({ method: 'POST', url: `/v1/users/${user}/erase`, token: inChild });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().records).toMatchObject({ bookings: 1 });
    const stored = await h.database.db.selectFrom('bookings').select('notes').where('_id', '=', String(parentBooking.json()._id)).executeTakeFirstOrThrow();
    expect(stored.notes).not.toContain('Rita');
  });
});
