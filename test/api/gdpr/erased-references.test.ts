import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/**
 * An erased user stays as a depersonalised row, so the records that named it keep a valid
 * link; nothing new may be linked to it (docs/gdpr.md "Erasure"): a create or a change that
 * names it is refused, as a reference to a record that does not exist is.
 */
describe.each(dialects)('references to an erased user on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let product: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Erased'), ['users:create', 'users:write:email', 'users:erase', ...crud('products'), ...crud('bookings'), ...crud('orders')]);
    product = String((await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 5 } })).json()._id);
  });
  afterAll(() => h.close());

  const user = async (email: string) => String((await h.request({ method: 'POST', url: '/v1/users', token, body: { email } })).json()._id);
  const book = (userId: string, day: string) =>
    h.request({ method: 'POST', url: '/v1/bookings', token, body: { product_id: product, user_id: userId, start_time: `2030-03-${day}T10:00:00Z`, end_time: `2030-03-${day}T12:00:00Z` } });

  it('refuses a new booking or order for an erased user, and a booking moved to one', async () => {
    const erased = await user('gone@example.com');
    const kept = await user('kept@example.com');
    const before = await book(kept, '01');
    expect(before.statusCode, before.body).toBe(201);
    expect((await h.request({ method: 'POST', url: `/v1/users/${erased}/erase`, token })).statusCode).toBe(200);

    const refused = expectProblem(await book(erased, '02'), 400, 'validation_failed');
    expect(refused.errors).toEqual([{ field: 'user_id', message: 'names an erased users record: nothing new may be linked to it' }]);
    expectProblem(
      await h.request({
        method: 'POST',
        url: '/v1/orders',
        token,
        body: { product_id: product, user_id: erased, start_time: '2030-03-03T10:00:00Z', end_time: '2030-03-03T12:00:00Z', total_amount: 10 },
      }),
      400,
      'validation_failed',
    );
    const id = String(before.json()._id);
    const moved = await h.request({ method: 'PATCH', url: `/v1/bookings/${id}`, token, body: { user_id: erased }, headers: { 'if-match': String(before.headers.etag) } });
    expectProblem(moved, 400, 'validation_failed');
    expect((await book(kept, '04')).statusCode).toBe(201);
  });
});
