import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { eventually } from '../../support/poll.js';

/*
 * An erasure and the writes of its user's bookings and orders lock rows in one order
 * (docs/architecture.md "Lock order"): a booking write locks its booking, then its product,
 * then share-locks a user its body names; an order write locks the order, its booking, its
 * product, then the user. The erasure never waits for a booking while it holds the user, so
 * neither can wait for the other in a cycle, and neither fails. PostgreSQL only: SQLite runs
 * one write transaction at a time, so nothing interleaves there.
 *
 * The interleaving is forced, not hoped for: a connection of the test holds the product, so
 * the write stops right after locking its booking; the erasure starts and must wait for that
 * booking; only once both wait (pg_stat_activity) is the product let go.
 */
describe('an erasure racing the writes of its user’s bookings and orders on postgres', () => {
  let h: Harness;
  let token = '';
  let serial = 0;

  beforeAll(async () => {
    h = await createHarness('postgres');
    token = await h.bearer(await h.tenant('Lock order'), [...crud('users'), ...crud('bookings'), ...crud('products'), ...crud('orders'), 'users:erase', 'users:write:email']);
  });
  afterAll(() => h.close());

  const stay = { start_time: '2030-06-01T13:00:00Z', end_time: '2030-06-03T08:00:00Z' };

  async function post(url: string, body: unknown): Promise<string> {
    const res = await h.request({ method: 'POST', url, token, body });
    expect(res.statusCode, res.body).toBe(201);
    return String(res.json()._id);
  }
  const etagOf = async (url: string) => String((await h.request({ method: 'GET', url, token })).headers.etag);
  const waiting = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(h.database.db)).rows[0]?.n);

  /** A user and a product (priced with `price`), both new. */
  async function userAndProduct(price?: number): Promise<{ user: string; product: string }> {
    serial += 1;
    const user = await post('/v1/users', { email: `locked${serial}@example.com`, first_name: `Lockwood${serial}` });
    const product = await post('/v1/products', {
      name: 'Flat',
      address: 'A 1',
      city: 'Berlin',
      zip_code: '10115',
      total_items: 5,
      time_zone: 'Europe/Berlin',
      ...(price === undefined ? {} : { price }),
    });
    return { user, product };
  }

  /**
   * Runs `write` and the erasure of `user` so that the write holds its booking and waits for
   * `product` while the erasure waits for that booking; then lets the product go.
   */
  async function race(product: string, user: string, write: () => Promise<LightMyRequestResponse>): Promise<{ written: LightMyRequestResponse; erased: LightMyRequestResponse }> {
    return h.database.db.connection().execute(async (holder) => {
      await sql`begin`.execute(holder);
      await sql`select _id from products where _id = ${product} for update`.execute(holder);
      const writing = write();
      await eventually(waiting, (n) => n === 1, 'the write to hold its booking and wait for the product');
      const erasing = h.request({ method: 'POST', url: `/v1/users/${user}/erase`, token });
      await eventually(waiting, (n) => n === 2, 'the erasure to wait for the booking');
      await sql`commit`.execute(holder);
      const [written, erased] = await Promise.all([writing, erasing]);
      return { written, erased };
    });
  }

  it('a booking PATCH naming the user: both answer, the booking is changed and erased', async () => {
    const { user, product } = await userAndProduct();
    const booking = await post('/v1/bookings', { product_id: product, user_id: user, notes: 'Lockwood likes the window', ...stay });
    const etag = await etagOf(`/v1/bookings/${booking}`);
    const { written, erased } = await race(product, user, () =>
      h.request({ method: 'PATCH', url: `/v1/bookings/${booking}`, token, body: { user_id: user, quantity: 2 }, headers: { 'if-match': etag } }),
    );
    expect([written.statusCode, erased.statusCode], `${written.body} ${erased.body}`).toEqual([200, 200]);
    expect((await h.request({ method: 'GET', url: `/v1/bookings/${booking}`, token })).json()).toMatchObject({ quantity: 2, notes: '[erased]', user_id: user });
  });

  it('an order cancel: the erasure waits for it, then erases the cancelled order’s booking', async () => {
    const { user, product } = await userAndProduct(90);
    const order = await post('/v1/orders', { product_id: product, user_id: user, ...stay });
    const etag = await etagOf(`/v1/orders/${order}`);
    const { written, erased } = await race(product, user, () => h.request({ method: 'PATCH', url: `/v1/orders/${order}`, token, body: { status: 'cancelled' }, headers: { 'if-match': etag } }));
    expect([written.statusCode, erased.statusCode], `${written.body} ${erased.body}`).toEqual([200, 200]);
    const booking = String((await h.request({ method: 'GET', url: `/v1/orders/${order}`, token })).json().booking_id);
    const stored = await h.database.db.selectFrom('bookings').select(['notes', 'status']).where('_id', '=', booking).executeTakeFirstOrThrow();
    expect(stored).toEqual({ notes: '[erased]', status: 'cancelled' });
  });

  it('a booking DELETE: the erasure waits for it, then erases the deleted booking', async () => {
    const { user, product } = await userAndProduct();
    const booking = await post('/v1/bookings', { product_id: product, user_id: user, notes: 'Lockwood cancels', ...stay });
    const etag = await etagOf(`/v1/bookings/${booking}`);
    const { written, erased } = await race(product, user, () => h.request({ method: 'DELETE', url: `/v1/bookings/${booking}`, token, headers: { 'if-match': etag } }));
    expect([written.statusCode, erased.statusCode], `${written.body} ${erased.body}`).toEqual([204, 200]);
    const stored = await h.database.db.selectFrom('bookings').select(['notes', 'deleted_at']).where('_id', '=', booking).executeTakeFirstOrThrow();
    expect(stored).toEqual({ notes: '[erased]', deleted_at: expect.anything() });
  });
});
