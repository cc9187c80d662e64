import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredOrders } from '../../../src/selling/order-expiry.js';
import { freshPostgresUrl } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { instanceWithClock, movableClock } from './shared-clock.js';
import type { ClockedInstance } from './shared-clock.js';

/*
 * The races of selling (docs/selling.md) across two instances of the service on one
 * PostgreSQL database, both reading one movable clock, each with its own pool: the last unit
 * ordered through both at once, and a payment racing the expiry sweep (run from both
 * instances' pools) and an order for the units the hold gave up. On SQLite, one instance:
 * ./orders.test.ts; random batches of all of it: ../booking/concurrency-model.test.ts.
 */
describe('selling across two instances on postgres', () => {
  const clock = movableClock();
  let h: Harness;
  let second: ClockedInstance;
  let token: string;
  let hook: { id: string; secret: string };

  beforeAll(async () => {
    const postgresUrl = await freshPostgresUrl({ migrated: true });
    h = await createHarness('postgres', { clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' }, database: { postgresUrl } });
    second = await instanceWithClock(h, postgresUrl, clock);
    token = await h.bearer(await h.tenant('Seller'), [...crud('products'), ...crud('orders'), ...crud('bookings'), 'orders:confirm', 'webhooks:create']);
    const made = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json();
    hook = { id: made._id, secret: made.secret };
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
  });

  /** Instance 0 (the harness's) or 1. */
  const on = (instance: number) => (instance % 2 === 0 ? h.request : second.request);
  const stay = { start_time: '2030-06-01T13:00:00Z', end_time: '2030-06-03T08:00:00Z' };
  const product = async () =>
    String((await on(0)({ method: 'POST', url: '/v1/products', token, body: { name: 'Flat', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: 1, price: 100 } })).json()._id);
  const order = (instance: number, productId: string, extra: Record<string, unknown> = {}) =>
    on(instance)({ method: 'POST', url: '/v1/orders', token, body: { product_id: productId, ...stay, ...extra } });
  const paid = (instance: number, orderId: string, amount: number, eventId: string) => {
    const body = JSON.stringify({ type: 'orders.paid', data: { order_id: orderId, amount, currency: 'EUR' } });
    const at = new Date(clock.now());
    const headers = {
      'content-type': 'application/json',
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(hook.secret).sign(eventId, at, body),
    };
    return on(instance)({ method: 'POST', url: `/v1/webhooks/${hook.id}/receive`, body, headers });
  };
  const events = async (recordId: string) => (await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', recordId).orderBy('_id').execute()).map((e) => e.type);
  const holding = async (productId: string) => {
    const rows = await h.database.db.selectFrom('bookings').select(['_id', 'status', 'expires_at']).where('product_id', '=', productId).execute();
    const now = clock.now();
    return rows.filter((b) => b.status === 'active' || (b.status === 'held' && Date.parse(String(h.database.dialect.fromDb('timestamp', b.expires_at))) > now)).map((b) => String(b._id));
  };

  it('gives the last unit to exactly one of 20 parallel orders sent to both instances', async () => {
    const p = await product();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => order(i, p)));
    expect(answers.map((a) => a.statusCode).sort(), answers.find((a) => a.statusCode !== 201 && a.statusCode !== 409)?.body).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
    for (const refused of answers.filter((a) => a.statusCode === 409)) expect(refused.json()).toMatchObject({ code: 'capacity_exceeded', available: 0 });
    const won = (answers.find((a) => a.statusCode === 201) as (typeof answers)[number]).json();
    expect(await holding(p)).toEqual([won.booking_id]);
    expect(await h.database.db.selectFrom('orders').select('_id').where('product_id', '=', p).execute()).toEqual([{ _id: won._id }]);
    expect(await events(won._id)).toEqual(['orders.created']);
  });

  it('ends a payment racing the sweeps of both instances in exactly one consistent outcome, the order expired at most once', async () => {
    for (let round = 0; round < 6; round += 1) {
      const p = await product();
      const o = (await order(round, p, { hold_seconds: 60 })).json();
      clock.advance(61_000);
      const [payment, ...sweeps] = await Promise.all([paid(round + 1, o._id, 200, `evt_two_${round}`), sweepExpiredOrders(h.database, clock), sweepExpiredOrders(second.database, clock)]);
      expect(payment.statusCode, payment.body).toBe(200);
      // The unit was free: the payment confirms, whether a sweep expired the order first or not.
      expect(payment.json()).toMatchObject({ outcome: 'applied' });
      const after = (await h.request({ method: 'GET', url: `/v1/orders/${o._id}`, token })).json();
      expect(after).toMatchObject({ status: 'confirmed', expires_at: null });
      expect((await h.request({ method: 'GET', url: `/v1/bookings/${o.booking_id}`, token })).json()).toMatchObject({ status: 'active', expires_at: null });
      const expired = sweeps.reduce((sum, sweep) => sum + sweep.expired, 0);
      expect(expired).toBeLessThanOrEqual(1);
      expect(await events(o._id)).toEqual(expired === 1 ? ['orders.created', 'orders.expired', 'orders.confirmed'] : ['orders.created', 'orders.confirmed']);
      expect(await holding(p)).toEqual([o.booking_id]);
    }
  });

  it('gives the units of a run-out hold to exactly one of its late payment and a new order on the other instance', async () => {
    for (let round = 0; round < 6; round += 1) {
      const p = await product();
      const o = (await order(round, p, { hold_seconds: 60 })).json();
      clock.advance(61_000);
      const [payment, taken] = await Promise.all([paid(round, o._id, 200, `evt_late_two_${round}`), order(round + 1, p), sweepExpiredOrders(h.database, clock)]);
      expect([payment.statusCode, taken.statusCode === 201 || taken.statusCode === 409], `${payment.body} ${taken.body}`).toEqual([200, true]);
      const after = (await h.request({ method: 'GET', url: `/v1/orders/${o._id}`, token })).json();
      const booking = (await h.request({ method: 'GET', url: `/v1/bookings/${o.booking_id}`, token })).json();
      if (taken.statusCode === 201) {
        // The new order came first: the late payment asks for a refund and holds nothing.
        expect(payment.json()).toMatchObject({ outcome: 'failed' });
        expect([after.status, booking.status]).toEqual(['refund_required', 'expired']);
        expect(await holding(p)).toEqual([taken.json().booking_id]);
      } else {
        expect(taken.json()).toMatchObject({ code: 'capacity_exceeded', available: 0 });
        expect(payment.json()).toMatchObject({ outcome: 'applied' });
        expect([after.status, booking.status]).toEqual(['confirmed', 'active']);
        expect(await holding(p)).toEqual([o.booking_id]);
      }
    }
  });
});
