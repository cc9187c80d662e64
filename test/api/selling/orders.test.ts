import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { sweepExpiredOrders } from '../../../src/selling/order-expiry.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const stripeSecret = 'whsec_stripe_selling_secret_0123456789';
const minute = 60_000;

/** A clock the test moves: holds and quotes expire when it says so. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/*
 * Selling a stay (docs/selling.md): quotes, orders that hold units through a `held` booking,
 * payments compared exactly, the expiry that time decides and the sweep records.
 */
describe.each(dialects)('selling on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let clock: ReturnType<typeof movableClock>;
  let standardHook: { id: string; secret: string };
  let stripeHook: string;

  beforeAll(async () => {
    clock = movableClock();
    h = await createHarness(dialect, { clock, env: { ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    token = await h.bearer(await h.tenant('Seller'), [...crud('products'), ...crud('orders'), ...crud('bookings'), ...crud('service-charges'), 'orders:quote', 'orders:confirm', 'webhooks:create']);
    const standard = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json();
    standardHook = { id: standard._id, secret: standard.secret };
    stripeHook = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret } })).json()._id;
  });
  afterAll(() => h.close());

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) => h.request({ method: 'POST', url, token, body, headers });
  const get = async (url: string) => (await h.request({ method: 'GET', url, token })).json();
  const product = async (fields: Record<string, unknown> = {}) =>
    String((await post('/v1/products', { name: 'Flat', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: 1, price: 100, time_zone: 'Europe/Berlin', ...fields })).json()._id);
  const stay = { start_time: '2030-06-01T13:00:00Z', end_time: '2030-06-03T08:00:00Z' };
  const order = (productId: string, extra: Record<string, unknown> = {}) => post('/v1/orders', { product_id: productId, ...stay, ...extra });
  const outbox = (recordId: string) => h.database.db.selectFrom('outbox_events').select(['type', 'data']).where('record_id', '=', recordId).orderBy('_id').execute();
  const paidStandard = (orderId: string, data: Record<string, unknown>, eventId: string) => {
    const body = JSON.stringify({ type: 'orders.paid', data: { order_id: orderId, ...data } });
    const at = new Date(clock.now());
    const headers = {
      'content-type': 'application/json',
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(standardHook.secret).sign(eventId, at, body),
    };
    return h.request({ method: 'POST', url: `/v1/webhooks/${standardHook.id}/receive`, body, headers });
  };
  const paidStripe = (orderId: string, object: Record<string, unknown>, eventId: string, type = 'payment_intent.succeeded') => {
    const body = JSON.stringify({ id: eventId, type, data: { object: { metadata: { order_id: orderId }, ...object } } });
    const at = Math.floor(clock.now() / 1000);
    const signature = `t=${at},v1=${createHmac('sha256', stripeSecret).update(`${at}.${body}`).digest('hex')}`;
    return h.request({ method: 'POST', url: `/v1/webhooks/${stripeHook}/receive`, body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
  };

  it('quotes rent per night in the product time zone and every service charge; the order from the quote holds the unit at exactly that total', async () => {
    const p = await product();
    expect((await post('/v1/service-charges', { product_id: p, name: 'Cleaning', amount: 30 })).statusCode).toBe(201);
    expect((await post('/v1/service-charges', { product_id: p, name: 'Tax', amount: 7.5, basis: 'percent_of_rent' })).statusCode).toBe(201);
    const quoted = await post('/v1/quotes', { product_id: p, ...stay });
    expect(quoted.statusCode, quoted.body).toBe(200);
    const quote = quoted.json();
    // 15:00 Berlin on 1 June to 10:00 on 3 June: the nights of 1 and 2 June.
    expect(quote).toMatchObject({ product_id: p, quantity: 1, currency: 'EUR', periods: 2, total: 245 });
    expect(quote.lines.map((l: { kind: string; amount: number }) => [l.kind, l.amount])).toEqual([
      ['rent', 100],
      ['rent', 100],
      ['service_charge', 30],
      ['service_charge', 15],
    ]);
    expect(quote.lines[0]).toMatchObject({ date: '2030-06-01', unit_price: 100, rate_id: null });
    // A quote holds nothing: the unit is still free for another quote.
    expect((await post('/v1/quotes', { product_id: p, ...stay })).statusCode).toBe(200);
    // The price changes; the quoted price stands.
    const read = await h.request({ method: 'GET', url: `/v1/products/${p}`, token });
    expect((await h.request({ method: 'PATCH', url: `/v1/products/${p}`, token, body: { price: 120 }, headers: { 'if-match': String(read.headers.etag) } })).statusCode).toBe(200);
    const created = await post('/v1/orders', { quote_id: quote.quote_id });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers.deprecation).toBeUndefined();
    const o = created.json();
    expect(o).toMatchObject({ status: 'active', total_amount: 245, currency: 'EUR', quantity: 1, lines: quote.lines, paid_at: null });
    expect(Date.parse(o.expires_at) - clock.now()).toBeGreaterThan(14 * minute);
    const booking = await get(`/v1/bookings/${o.booking_id}`);
    expect(booking).toMatchObject({ status: 'held', order_id: o._id, expires_at: o.expires_at, quantity: 1 });
    // The unit is held: a second order and a plain booking are refused.
    expectProblem(await order(p), 409, 'capacity_exceeded');
    expectProblem(await post('/v1/bookings', { product_id: p, ...stay }), 409, 'capacity_exceeded');
    // The booking changes only through its order.
    const b = await h.request({ method: 'GET', url: `/v1/bookings/${o.booking_id}`, token });
    expectProblem(
      await h.request({ method: 'PATCH', url: `/v1/bookings/${o.booking_id}`, token, body: { status: 'cancelled' }, headers: { 'if-match': String(b.headers.etag) } }),
      409,
      'managed_by_order',
    );
    expectProblem(await h.request({ method: 'DELETE', url: `/v1/bookings/${o.booking_id}`, token, headers: { 'if-match': String(b.headers.etag) } }), 409, 'managed_by_order');
    expect((await outbox(o._id)).map((e) => e.type)).toEqual(['orders.created']);
  });

  it('refuses what the service owns, a stay with a quote, and quotes that are not standing, writing nothing', async () => {
    const p = await product();
    const before = await h.database.db.selectFrom('orders').select('_id').execute();
    for (const field of ['lines', 'booking_id', 'expires_at', 'paid_at']) expectProblem(await order(p, { [field]: null }), 400, 'validation_failed');
    for (const [field, value] of [
      ['total_amount', 1],
      ['currency', 'EUR'],
      ['status', 'confirmed'],
    ] as const)
      expectProblem(await order(p, { [field]: value }), 400, 'validation_failed');
    for (const hold of [59, 86_401, '900', 1.5]) expectProblem(await order(p, { hold_seconds: hold }), 400, 'validation_failed');
    expectProblem(await post('/v1/orders', { product_id: p }), 400, 'validation_failed');
    const quote = (await post('/v1/quotes', { product_id: p, ...stay })).json();
    expectProblem(await post('/v1/orders', { quote_id: quote.quote_id, product_id: p }), 400, 'validation_failed');
    expect((await post('/v1/orders', { quote_id: 'q_nonsense' })).json()).toMatchObject({ code: 'invalid_quote', reason: 'invalid' });
    expect((await post('/v1/orders', { quote_id: `${quote.quote_id.slice(0, -2)}AA` })).json()).toMatchObject({ code: 'invalid_quote', reason: 'invalid' });
    const other = await h.bearer(await h.tenant('Other'), ['orders:create', 'products:read']);
    expect((await h.request({ method: 'POST', url: '/v1/orders', token: other, body: { quote_id: quote.quote_id } })).json()).toMatchObject({ code: 'invalid_quote', reason: 'invalid' });
    clock.advance(16 * minute);
    expect((await post('/v1/orders', { quote_id: quote.quote_id })).json()).toMatchObject({ code: 'invalid_quote', reason: 'expired' });
    // Once purged, the quote is still told expired.
    await sweepExpiredOrders(h.database, clock);
    expect((await post('/v1/orders', { quote_id: quote.quote_id })).json()).toMatchObject({ code: 'invalid_quote', reason: 'expired' });
    expect(await h.database.db.selectFrom('orders').select('_id').execute()).toHaveLength(before.length);
    expectProblem(await post('/v1/quotes', { product_id: p, ...stay, quantity: 2 }), 409, 'capacity_exceeded');
    // A total no JSON number holds exactly is a clear 400, not a crash.
    const huge = await product({ price: 1_000_000_000, total_items: 10_000, price_unit: 'hour' });
    expectProblem(await post('/v1/quotes', { product_id: huge, start_time: '2030-01-01T00:00:00Z', end_time: '2031-01-01T00:00:00Z', quantity: 10_000 }), 400, 'validation_failed');
    expect((await post('/v1/quotes', { product_id: p, ...stay, quantity: 2 })).json()).toMatchObject({ available: 1 });
  });

  it('keeps v1 orders of a product without a price, deprecated; guests get not_for_sale', async () => {
    const p = await product({ price: null });
    expectProblem(await post('/v1/quotes', { product_id: p, ...stay }), 409, 'not_for_sale');
    const created = await order(p, { total_amount: 80, status: 'confirmed' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers.deprecation).toMatch(/^@\d+$/);
    expect(Date.parse(String(created.headers.sunset)) - Number(String(created.headers.deprecation).slice(1)) * 1000).toBeGreaterThanOrEqual(365 * 24 * 60 * minute);
    expect(created.json()).toMatchObject({ status: 'confirmed', total_amount: 80, currency: 'EUR', booking_id: null, lines: null });
    // No unit taken: a plain booking still fits.
    expect((await post('/v1/bookings', { product_id: p, ...stay })).statusCode).toBe(201);
  });

  it('a hold stops counting at expires_at, before any sweep; the sweep then records it once, as the system', async () => {
    const p = await product();
    const first = (await order(p, { hold_seconds: 60 })).json();
    expectProblem(await order(p), 409, 'capacity_exceeded');
    clock.advance(61_000);
    const second = await order(p);
    expect(second.statusCode, second.body).toBe(201);
    const day = await get(`/v1/products/${p}/availability?from=2030-06-01&to=2030-06-02`);
    expect(day.slots[0]).toMatchObject({ booked: 1, available: 0 });
    expect((await sweepExpiredOrders(h.database, clock)).expired).toBeGreaterThanOrEqual(1);
    expect(await get(`/v1/orders/${first._id}`)).toMatchObject({ status: 'expired' });
    expect(await get(`/v1/bookings/${first.booking_id}`)).toMatchObject({ status: 'expired' });
    expect(await get(`/v1/orders/${second.json()._id}`)).toMatchObject({ status: 'active' });
    expect((await sweepExpiredOrders(h.database, clock)).expired).toBe(0);
    const audit = await h.database.db.selectFrom('audit_logs').select(['actor_type', 'action']).where('record_id', '=', first._id).where('action', '=', 'update').execute();
    expect(audit).toEqual([{ actor_type: 'system', action: 'update' }]);
    expect((await outbox(first._id)).map((e) => e.type)).toEqual(['orders.created', 'orders.expired']);
  });

  it('a payment for the right amount confirms; a cent off confirms nothing; a duplicate has no second effect', async () => {
    const p = await product({ price: 99.99 });
    const o = (await order(p)).json();
    expect(o.total_amount).toBe(199.98);
    const short = await paidStandard(o._id, { amount: 199.97, currency: 'EUR' }, 'evt_short');
    expect(short.json()).toMatchObject({ outcome: 'failed' });
    expect(await get(`/v1/orders/${o._id}`)).toMatchObject({ status: 'active' });
    expect((await paidStandard(o._id, { currency: 'EUR' }, 'evt_none')).json()).toMatchObject({ outcome: 'failed' });
    expect((await paidStandard(o._id, { amount: 199.98, currency: 'USD' }, 'evt_usd')).json()).toMatchObject({ outcome: 'failed' });
    const paid = await paidStandard(o._id, { amount: 199.98, currency: 'EUR' }, 'evt_paid');
    expect(paid.json()).toMatchObject({ outcome: 'applied' });
    expect(await get(`/v1/orders/${o._id}`)).toMatchObject({ status: 'confirmed', expires_at: null });
    expect((await get(`/v1/orders/${o._id}`)).paid_at).toEqual(expect.any(String));
    expect(await get(`/v1/bookings/${o.booking_id}`)).toMatchObject({ status: 'active', expires_at: null });
    expect((await paidStandard(o._id, { amount: 199.98, currency: 'EUR' }, 'evt_paid')).json()).toMatchObject({ duplicate: true });
    expect((await paidStandard(o._id, { amount: 199.98, currency: 'EUR' }, 'evt_again')).json()).toMatchObject({ outcome: 'ignored' });
    const events = (await outbox(o._id)).map((e) => e.type);
    expect(events).toEqual(['orders.created', 'orders.payment_mismatch', 'orders.payment_mismatch', 'orders.payment_mismatch', 'orders.confirmed']);
    // Stripe reports minor units: 19998 cents.
    const q = (await order(await product({ price: 99.99 }))).json();
    expect((await paidStripe(q._id, { amount_received: 19_997, currency: 'eur' }, 'pi_short')).json()).toMatchObject({ outcome: 'failed' });
    expect((await paidStripe(q._id, { amount_received: 19_998, currency: 'eur' }, 'pi_ok')).json()).toMatchObject({ outcome: 'applied' });
    const jpy = (await order(await product({ price: 12_000, currency: 'JPY' }))).json();
    expect((await paidStripe(jpy._id, { amount_received: 24_000, currency: 'jpy' }, 'pi_jpy')).json()).toMatchObject({ outcome: 'applied' });
    // Stripe counts ISK in hundredths and MGA in whole units, unlike ISO 4217.
    const isk = (await order(await product({ price: 15_000, currency: 'ISK' }))).json();
    expect((await paidStripe(isk._id, { amount_received: 3_000_000, currency: 'isk' }, 'pi_isk')).json()).toMatchObject({ outcome: 'applied' });
    const mga = (await order(await product({ price: 50_000, currency: 'MGA' }))).json();
    expect((await paidStripe(mga._id, { amount_received: 10_000_000, currency: 'mga' }, 'pi_mga_iso')).json()).toMatchObject({ outcome: 'failed' });
    expect((await paidStripe(mga._id, { amount_received: 100_000, currency: 'mga' }, 'pi_mga')).json()).toMatchObject({ outcome: 'applied' });
    // A Checkout Session paid by a delayed method completes unpaid: the later async success pays.
    const session = (await order(await product({ price: 50 }))).json();
    const unpaid = { amount_total: 10_000, currency: 'eur', payment_status: 'unpaid' };
    expect((await paidStripe(session._id, unpaid, 'cs_unpaid', 'checkout.session.completed')).json()).toMatchObject({ outcome: 'ignored' });
    expect(await get(`/v1/orders/${session._id}`)).toMatchObject({ status: 'active' });
    expect((await paidStripe(session._id, { ...unpaid, payment_status: 'paid' }, 'cs_paid', 'checkout.session.async_payment_succeeded')).json()).toMatchObject({ outcome: 'applied' });
    expect(await get(`/v1/orders/${session._id}`)).toMatchObject({ status: 'confirmed' });
  });

  it('a late payment confirms with late: true while the units are free, and asks for a refund once they are taken', async () => {
    const free = await product();
    const a = (await order(free, { hold_seconds: 60 })).json();
    clock.advance(61_000);
    expect((await paidStandard(a._id, { amount: 200, currency: 'EUR' }, 'evt_late_free')).json()).toMatchObject({ outcome: 'applied' });
    expect(await get(`/v1/orders/${a._id}`)).toMatchObject({ status: 'confirmed' });
    const confirmed = (await outbox(a._id)).find((e) => e.type === 'orders.confirmed');
    const data = typeof confirmed?.data === 'string' ? JSON.parse(confirmed.data) : confirmed?.data;
    expect(data).toMatchObject({ late: true, status: 'confirmed' });

    const taken = await product();
    const b = (await order(taken, { hold_seconds: 60 })).json();
    clock.advance(61_000);
    await sweepExpiredOrders(h.database, clock);
    expect((await order(taken)).statusCode).toBe(201);
    const late = await paidStandard(b._id, { amount: 200, currency: 'EUR' }, 'evt_late_taken');
    expect(late.json()).toMatchObject({ outcome: 'failed' });
    expect(await get(`/v1/orders/${b._id}`)).toMatchObject({ status: 'refund_required' });
    expect(await get(`/v1/bookings/${b.booking_id}`)).toMatchObject({ status: 'expired' });
    expect((await outbox(b._id)).map((e) => e.type)).toEqual(['orders.created', 'orders.expired', 'orders.refund_required']);
  });

  it('confirm without a payment, cancel frees the units at once, and no other status change is allowed', async () => {
    const p = await product();
    const created = await order(p);
    const o = created.json();
    expectProblem(await post(`/v1/orders/${o._id}/confirm`, undefined), 428, 'precondition_required');
    const confirmed = await post(`/v1/orders/${o._id}/confirm`, undefined, { 'if-match': String(created.headers.etag) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ status: 'confirmed' });
    const again = await post(`/v1/orders/${o._id}/confirm`, undefined, { 'if-match': String(confirmed.headers.etag) });
    expect(again.statusCode).toBe(200);
    expect((await outbox(o._id)).map((e) => e.type)).toEqual(['orders.created', 'orders.confirmed']);
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/orders/${o._id}`, token, body: { status: 'active' }, headers: { 'if-match': String(again.headers.etag) } }), 409, 'invalid_transition');
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/orders/${o._id}`, token, body: { total_amount: 1 }, headers: { 'if-match': String(again.headers.etag) } }), 400, 'validation_failed');
    const cancelled = await h.request({ method: 'PATCH', url: `/v1/orders/${o._id}`, token, body: { status: 'cancelled' }, headers: { 'if-match': String(again.headers.etag) } });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await get(`/v1/bookings/${o.booking_id}`)).toMatchObject({ status: 'cancelled' });
    expect((await outbox(o._id)).map((e) => e.type)).toEqual(['orders.created', 'orders.confirmed', 'orders.cancelled']);
    expect((await order(p)).statusCode).toBe(201);
    expectProblem(await post(`/v1/orders/${o._id}/confirm`, undefined, { 'if-match': String(cancelled.headers.etag) }), 409, 'invalid_transition');
  });

  it('the availability search gives each product the stay’s price and leaves out what its rates refuse', async () => {
    const city = `Selling-${dialect}`;
    const open = await product({ city, price: 80 });
    const unpriced = await product({ city, price: null });
    const closed = await product({ city, price: 80 });
    expect((await post(`/v1/products/${closed}/rates`, { from: '2030-07-02', to: '2030-07-03', closed: true })).statusCode).toBe(201);
    const search = await get(`/v1/availability?from=2030-07-01&to=2030-07-04&city=${city}&quantity=1`);
    const byId = new Map((search.items as { _id: string; price: unknown; available: number }[]).map((item) => [item._id, item]));
    expect(byId.get(open)).toMatchObject({ price: { total: 240, currency: 'EUR' }, available: 1 });
    expect(byId.get(unpriced)).toMatchObject({ price: null });
    expect(byId.has(closed)).toBe(false);
    expect(search.total).toBe(2);
    // What the search lists with a price can be ordered at that total.
    const ordered = await post('/v1/orders', { product_id: open, start_time: '2030-06-30T22:00:00Z', end_time: '2030-07-03T22:00:00Z' });
    expect(ordered.json()).toMatchObject({ total_amount: 240 });
    const refused = await post('/v1/quotes', { product_id: closed, start_time: '2030-06-30T22:00:00Z', end_time: '2030-07-03T22:00:00Z' });
    expectProblem(refused, 409, 'stay_restricted');
    expect(refused.json().reasons).toEqual([{ rule: 'closed', rate_id: expect.any(String), date: '2030-07-02' }]);
  });

  it('writes an order and its booking together or not at all', async () => {
    const p = await product();
    // The order row's insert fails after its booking's insert, in the same transaction (a
    // crash there): nothing of either stays, and the unit is free afterwards.
    const install =
      dialect === 'sqlite'
        ? [sql`create trigger fail_order_insert before insert on orders begin select raise(abort, 'injected order failure'); end`]
        : [
            sql.raw(`create function fail_order_insert() returns trigger language plpgsql as $$ begin raise exception 'injected order failure'; end $$`),
            sql`create trigger fail_order_insert before insert on orders for each row execute function fail_order_insert()`,
          ];
    for (const statement of install) await statement.execute(h.database.db);
    try {
      const failed = await order(p);
      expect(failed.statusCode).toBe(500);
    } finally {
      await sql`drop trigger fail_order_insert${dialect === 'postgres' ? sql` on orders` : sql``}`.execute(h.database.db);
      if (dialect === 'postgres') await sql`drop function fail_order_insert()`.execute(h.database.db);
    }
    expect(await h.database.db.selectFrom('bookings').select('_id').where('product_id', '=', p).execute()).toEqual([]);
    expect(await h.database.db.selectFrom('orders').select('_id').where('product_id', '=', p).execute()).toEqual([]);
    expect((await order(p)).statusCode).toBe(201);
  });

  it('gives the last unit to exactly one of 20 parallel orders', async () => {
    const p = await product();
    const answers = await Promise.all(Array.from({ length: 20 }, () => order(p)));
    expect(answers.map((a) => a.statusCode).sort(), answers.find((a) => a.statusCode !== 201 && a.statusCode !== 409)?.body).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(19);
    const held = await h.database.db.selectFrom('bookings').select('_id').where('product_id', '=', p).execute();
    expect(held).toHaveLength(1);
  });

  it('a payment racing the sweep ends in exactly one consistent outcome', async () => {
    for (let round = 0; round < 5; round += 1) {
      const p = await product();
      const o = (await order(p, { hold_seconds: 60 })).json();
      clock.advance(61_000);
      const [paid] = await Promise.all([paidStandard(o._id, { amount: 200, currency: 'EUR' }, `evt_race_${round}`), sweepExpiredOrders(h.database, clock)]);
      expect(paid.statusCode).toBe(200);
      const after = await get(`/v1/orders/${o._id}`);
      const booking = await get(`/v1/bookings/${o.booking_id}`);
      // The unit was free: the payment confirms, late or not, whichever ran first.
      expect(after.status).toBe('confirmed');
      expect(booking.status).toBe('active');
    }
  });
});
