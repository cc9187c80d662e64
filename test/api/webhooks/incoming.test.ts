import { createHash, createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const stripeSecret = 'whsec_stripe_test_secret_0123456789';

function stripeSignature(body: string, at = Math.floor(Date.now() / 1000), secret = stripeSecret): string {
  return `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
}

describe.each(dialects)('incoming webhooks on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let product: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Payments'), [...crud('products'), ...crud('orders'), 'webhooks:create', 'webhooks:read']);
    product = (await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 } })).json()._id;
  });
  afterAll(() => h.close());

  const order = async () =>
    (await h.request({ method: 'POST', url: '/v1/orders', token, body: { product_id: product, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z' } })).json()._id as string;
  const statusOf = async (id: string) => (await h.request({ method: 'GET', url: `/v1/orders/${id}`, token })).json().status as string;
  const receive = (id: string, body: string, headers: Record<string, string>) =>
    h.request({ method: 'POST', url: `/v1/webhooks/${id}/receive`, body, headers: { 'content-type': 'application/json', ...headers } });

  it('Standard Webhooks: a signed orders.paid confirms the order once, audited with the webhook as actor', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } });
    expect(created.statusCode, created.body).toBe(201);
    const { _id: hookId, secret } = created.json() as { _id: string; secret: string };
    const orderId = await order();
    const body = JSON.stringify({ type: 'orders.paid', timestamp: new Date().toISOString(), data: { order_id: orderId } });
    const sender = new Webhook(secret);
    const at = new Date();
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': sender.sign('msg_1', at, body) };
    const first = await receive(hookId, body, headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ received: true, event_id: 'msg_1', outcome: 'applied' });
    expect(await statusOf(orderId)).toBe('confirmed');
    const audit = await h.database.db.selectFrom('audit_logs').select(['actor_type', 'actor_id']).where('record_id', '=', orderId).where('action', '=', 'update').execute();
    expect(audit).toEqual([{ actor_type: 'webhook', actor_id: hookId }]);
    // A duplicate: 200, no second effect.
    const again = await receive(hookId, body, headers);
    expect(again.json()).toMatchObject({ duplicate: true, outcome: 'applied' });
    expect(await h.database.db.selectFrom('audit_logs').select('_id').where('record_id', '=', orderId).where('action', '=', 'update').execute()).toHaveLength(1);
    // The same id with another body.
    const other = JSON.stringify({ type: 'orders.paid', data: { order_id: 'x' } });
    expectProblem(await receive(hookId, other, { ...headers, 'webhook-signature': sender.sign('msg_1', at, other) }), 422, 'event_id_reused');
    // Bad or missing signatures, stale timestamps, unknown webhooks.
    expectProblem(await receive(hookId, body, { ...headers, 'webhook-signature': 'v1,AAAA' }), 401, 'unauthenticated');
    expectProblem(await receive(hookId, body, { 'webhook-id': 'msg_2' }), 400, 'validation_failed');
    const old = new Date(Date.now() - 600_000);
    expectProblem(
      await receive(hookId, body, { 'webhook-id': 'msg_3', 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': sender.sign('msg_3', old, body) }),
      401,
      'unauthenticated',
    );
    expectProblem(await receive('01890000-0000-7000-8000-000000000000', body, headers), 404, 'not_found');
    const listed = (await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/received`, token })).json();
    expect(listed.items).toEqual([expect.objectContaining({ _id: 'msg_1', type: 'orders.paid', outcome: 'applied' })]);
  });

  it('Standard Webhooks: a malformed webhook-signature is a 400 naming the header; a well-formed wrong one a 401', async () => {
    const created = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json() as { _id: string; secret: string };
    const body = JSON.stringify({ type: 'ping', data: {} });
    const at = new Date();
    const good = new Webhook(created.secret).sign('msg_sig', at, body);
    const send = (signature: string) => receive(created._id, body, { 'webhook-id': 'msg_sig', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature });
    for (const malformed of ['garbage', 'v1', 'v1,', 'v1,not base64!', `${good},x`, `${good} garbage`, 'v1,AAA', 'v1a,AAAA']) {
      const answer = await send(malformed);
      expectProblem(answer, 400, 'validation_failed');
      expect(answer.json().errors, malformed).toEqual([{ field: 'webhook-signature', message: expect.stringContaining('v1,') }]);
    }
    expectProblem(await send('v1,AAAA'), 401, 'unauthenticated');
    expectProblem(await send(`v1,${Buffer.alloc(32).toString('base64')}`), 401, 'unauthenticated');
    // Other versions next to a v1 entry are well-formed and skipped; the v1 entry verifies.
    expect((await send(`v1a,AAAA ${good}`)).json()).toMatchObject({ received: true, event_id: 'msg_sig', outcome: 'ignored' });
  });

  it('Standard Webhooks: a 400 for a bad webhook-id or webhook-timestamp names that header and what is wrong', async () => {
    const created = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json() as { _id: string; secret: string };
    const body = JSON.stringify({ type: 'ping', data: {} });
    const at = new Date();
    const seconds = String(Math.floor(at.getTime() / 1000));
    const sender = new Webhook(created.secret);
    const errorsOf = async (headers: Record<string, string>) => {
      const answer = await receive(created._id, body, headers);
      expectProblem(answer, 400, 'validation_failed');
      return answer.json().errors as unknown;
    };
    expect(await errorsOf({ 'webhook-id': 'msg_ts', 'webhook-timestamp': 'abc', 'webhook-signature': sender.sign('msg_ts', at, body) })).toEqual([
      { field: 'webhook-timestamp', message: 'must be whole seconds since the Unix epoch (digits only)' },
    ]);
    const long = 'm'.repeat(201);
    expect(await errorsOf({ 'webhook-id': long, 'webhook-timestamp': seconds, 'webhook-signature': sender.sign(long, at, body) })).toEqual([
      { field: 'webhook-id', message: 'must be at most 200 characters' },
    ]);
    expect(await errorsOf({ 'webhook-id': 'msg_missing' })).toEqual([
      { field: 'webhook-timestamp', message: 'is required' },
      { field: 'webhook-signature', message: 'is required' },
    ]);
  });

  it('Stripe: payment_intent.succeeded with metadata.order_id confirms; two identical deliveries in parallel have one effect', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).not.toHaveProperty('secret');
    const hookId = created.json()._id as string;
    const orderId = await order();
    const body = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { metadata: { order_id: orderId } } } });
    const headers = { 'stripe-signature': stripeSignature(body) };
    const answers = await Promise.all([receive(hookId, body, headers), receive(hookId, body, headers)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual(answers.some((a) => a.statusCode === 409) ? [200, 409] : [200, 200]);
    expect(await statusOf(orderId)).toBe('confirmed');
    expect(await h.database.db.selectFrom('audit_logs').select('_id').where('record_id', '=', orderId).where('action', '=', 'update').execute()).toHaveLength(1);
    const ignored = JSON.stringify({ id: 'evt_2', type: 'customer.created', data: { object: {} } });
    expect((await receive(hookId, ignored, { 'stripe-signature': stripeSignature(ignored) })).json()).toMatchObject({ outcome: 'ignored' });
    expectProblem(await receive(hookId, body, { 'stripe-signature': stripeSignature(body, undefined, 'whsec_wrong') }), 401, 'unauthenticated');
    expectProblem(await receive(hookId, body, { 'stripe-signature': 'garbage' }), 400, 'validation_failed');
  });

  it("checks a signed event against its scheme's schema, after the signature: 400 naming the field, nothing recorded", async () => {
    const stripeHook = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret } })).json()._id as string;
    const signedStripe = (body: string) => receive(stripeHook, body, { 'stripe-signature': stripeSignature(body) });
    const fieldsOf = (answer: { json(): unknown }) => (answer.json() as { errors: { field: string; message: string }[] }).errors;
    const noId = await signedStripe(JSON.stringify({ type: 'payment_intent.succeeded' }));
    expectProblem(noId, 400, 'validation_failed');
    expect(fieldsOf(noId)).toEqual([{ field: 'id', message: 'is required' }]);
    expect(fieldsOf(await signedStripe(JSON.stringify({ id: 'e'.repeat(201), type: 'x' })))).toEqual([{ field: 'id', message: 'must be at most 200 characters' }]);
    expect(fieldsOf(await signedStripe(JSON.stringify({ id: 7, type: ['x'] })))).toEqual([
      { field: 'id', message: 'must be a string' },
      { field: 'type', message: 'must be a string' },
    ]);
    expect(fieldsOf(await signedStripe('[1, 2]'))).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    expect((await signedStripe('{"id": "evt_')).statusCode).toBe(400);
    // Unsigned, the same content is refused for its signature.
    expectProblem(await receive(stripeHook, '[1, 2]', { 'stripe-signature': stripeSignature('[1, 2]', undefined, 'whsec_wrong') }), 401, 'unauthenticated');

    const created = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json() as { _id: string; secret: string };
    const sender = new Webhook(created.secret);
    const at = new Date();
    const body = JSON.stringify({ type: { not: 'a string' }, data: {} });
    const headers = { 'webhook-id': 'msg_schema', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': sender.sign('msg_schema', at, body) };
    expect(fieldsOf(await receive(created._id, body, headers))).toEqual([{ field: 'type', message: 'must be a string' }]);
    // An event without a usable order is accepted and recorded as failed (the contract), not refused.
    const noOrder = JSON.stringify({ type: 'orders.paid', data: { order_id: 42 } });
    const accepted = await receive(created._id, noOrder, { ...headers, 'webhook-id': 'msg_no_order', 'webhook-signature': sender.sign('msg_no_order', at, noOrder) });
    expect(accepted.json()).toMatchObject({ received: true, event_id: 'msg_no_order', outcome: 'failed' });
    const listed = (await h.request({ method: 'GET', url: `/v1/webhooks/${stripeHook}/received`, token })).json();
    expect(listed.items).toEqual([]);
  });

  it('refuses a correctly signed event sent with a Content-Encoding or a charset other than UTF-8 (415), with no effect', async () => {
    const hookId = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret } })).json()._id as string;
    const orderId = await order();
    const body = JSON.stringify({ id: 'evt_encoded', type: 'payment_intent.succeeded', data: { object: { metadata: { order_id: orderId } } } });
    const headers = { 'stripe-signature': stripeSignature(body) };
    expectProblem(await receive(hookId, body, { ...headers, 'content-encoding': 'gzip' }), 415, 'unsupported_media_type');
    expectProblem(await receive(hookId, body, { ...headers, 'content-type': 'application/json; charset=latin1' }), 415, 'unsupported_media_type');
    expect(await statusOf(orderId)).not.toBe('confirmed');
    expect((await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/received`, token })).json().items).toEqual([]);
    // Stripe labels its JSON `charset=utf-8`.
    const answer = await receive(hookId, body, { ...headers, 'content-type': 'application/json; charset=utf-8' });
    expect(answer.json()).toMatchObject({ received: true, outcome: 'applied' });
  });

  it("Stripe's own signer: a header from stripe.webhooks.generateTestHeaderString verifies (200, order confirmed)", async () => {
    // Stripe publishes no fixed secret/payload/timestamp/signature triple; its SDK's test
    // signer (documented by Stripe for testing webhook endpoints) is the authority instead.
    const stripeSdk = new Stripe('sk_test_not_used_offline');
    const secret = 'whsec_' + 'stripe-interop-'.repeat(3);
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = created.json()._id as string;
    const orderId = await order();
    const payload = JSON.stringify(
      { id: 'evt_interop_1', object: 'event', type: 'checkout.session.completed', data: { object: { object: 'checkout.session', metadata: { order_id: orderId } } } },
      null,
      2,
    );
    const header = stripeSdk.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(Date.now() / 1000) });
    // What Stripe's verifier accepts, the service accepts.
    expect(stripeSdk.webhooks.constructEvent(payload, header, secret).id).toBe('evt_interop_1');
    const accepted = await receive(hookId, payload, { 'stripe-signature': header });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ received: true, event_id: 'evt_interop_1', outcome: 'applied' });
    expect(await statusOf(orderId)).toBe('confirmed');
    // A header Stripe signed more than 300 s ago is stale; one signed with another secret does not match.
    const stale = stripeSdk.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(Date.now() / 1000) - 301 });
    expectProblem(await receive(hookId, payload, { 'stripe-signature': stale }), 401, 'unauthenticated');
    const forged = stripeSdk.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    expectProblem(await receive(hookId, payload, { 'stripe-signature': forged }), 401, 'unauthenticated');
  });

  it('a claim left processing by a dead instance is taken over after 60 s; a fresh one answers 409', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret } });
    const hookId = created.json()._id as string;
    const orderId = await order();
    const body = JSON.stringify({ id: 'evt_orphan', type: 'payment_intent.succeeded', data: { object: { metadata: { order_id: orderId } } } });
    const fingerprint = createHash('sha256').update(body).digest('base64url');
    const claim = (receivedAt: number) =>
      h.database.db
        .insertInto('webhook_received')
        .values({ webhook_id: hookId, event_id: 'evt_orphan', fingerprint, state: 'processing', type: 'payment_intent.succeeded', outcome: null, detail: null, received_at: receivedAt })
        .execute();
    // Another delivery is working on it right now: the sender is asked to come back.
    await claim(Date.now() - 5_000);
    expectProblem(await receive(hookId, body, { 'stripe-signature': stripeSignature(body) }), 409, 'conflict');
    expect(await statusOf(orderId)).not.toBe('confirmed');
    // The instance that claimed it died (kill -9) two minutes ago: the retry takes over and applies once.
    await h.database.db
      .updateTable('webhook_received')
      .set({ received_at: Date.now() - 120_000 })
      .where('event_id', '=', 'evt_orphan')
      .execute();
    const taken = await receive(hookId, body, { 'stripe-signature': stripeSignature(body) });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json()).toMatchObject({ outcome: 'applied' });
    expect(taken.json()).not.toHaveProperty('duplicate');
    expect(await statusOf(orderId)).toBe('confirmed');
    expect((await receive(hookId, body, { 'stripe-signature': stripeSignature(body) })).json()).toMatchObject({ duplicate: true, outcome: 'applied' });
  });

  it('refuses senders outside the allowlist and checks the shape of incoming webhooks', async () => {
    const guarded = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe', secret: stripeSecret, ip_allowlist: ['10.0.0.0/8'] } });
    const body = JSON.stringify({ id: 'evt_9', type: 'payment_intent.succeeded', data: { object: {} } });
    expectProblem(await receive(guarded.json()._id, body, { 'stripe-signature': stripeSignature(body) }), 403, 'ip_not_allowed');
    expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'stripe' } }), 400, 'validation_failed');
    expectProblem(
      await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks', url: 'https://example.com/x' } }),
      400,
      'validation_failed',
    );
    expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { events: ['ping'] } }), 400, 'validation_failed');
  });
  describe('an incoming webhook reaches the orders of its node and below, and nothing else', () => {
    let system = '';
    const inNode = (node: string) => ({ 'x-tenant-id': node });
    const orderIn = async (node: string) => {
      const made = await h.request({ method: 'POST', url: '/v1/products', token: system, body: { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 }, headers: inNode(node) });
      const body = { product_id: made.json()._id, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z' };
      return (await h.request({ method: 'POST', url: '/v1/orders', token: system, body, headers: inNode(node) })).json()._id as string;
    };
    const hookIn = async (node: string) =>
      (await h.request({ method: 'POST', url: '/v1/webhooks', token: system, body: { direction: 'incoming', scheme: 'standard-webhooks' }, headers: inNode(node) })).json() as {
        _id: string;
        secret: string;
      };
    const paid = (hook: { secret: string }, orderId: string, eventId: string) => {
      const body = JSON.stringify({ type: 'orders.paid', data: { order_id: orderId } });
      const at = new Date();
      return { body, headers: { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(hook.secret).sign(eventId, at, body) } };
    };
    const statusBySystem = async (id: string) => (await h.request({ method: 'GET', url: `/v1/orders/${id}`, token: system })).json().status as string;

    beforeAll(async () => {
      system = await h.bearer(null, [...crud('products'), ...crud('orders'), 'webhooks:create']);
    });

    it("confirms an order of its own node or one below, never another tenant's (failed, the order untouched)", async () => {
      const partner = await h.tenant('Collector', 'partner');
      const shop = await h.tenant('Shop', 'tenant', partner);
      const elsewhere = await h.tenant('Elsewhere');
      const [shopOrder, elsewhereOrder] = [await orderIn(shop), await orderIn(elsewhere)];
      const [shopHook, partnerHook] = [await hookIn(shop), await hookIn(partner)];

      const across = paid(shopHook, elsewhereOrder, 'evt_across');
      expect((await receive(shopHook._id, across.body, across.headers)).json()).toMatchObject({ received: true, outcome: 'failed' });
      expect(await statusBySystem(elsewhereOrder)).toBe('active');
      const own = paid(shopHook, shopOrder, 'evt_own');
      expect((await receive(shopHook._id, own.body, own.headers)).json()).toMatchObject({ outcome: 'applied' });

      const below = await orderIn(shop);
      const down = paid(partnerHook, below, 'evt_down');
      expect((await receive(partnerHook._id, down.body, down.headers)).json()).toMatchObject({ outcome: 'applied' });
      expect(await statusBySystem(below)).toBe('confirmed');
    });

    it('a webhook whose node no longer exists confirms nothing anywhere (failed)', async () => {
      const gone = await h.tenant('Gone');
      const hook = await hookIn(gone);
      const target = await orderIn(await h.tenant('Bystander'));
      // Cascade deny keeps the node of a live webhook; this breaks that invariant by hand.
      await h.database.db
        .updateTable('tenants')
        .set({ deleted_at: h.database.dialect.toDb('timestamp', new Date().toISOString()) })
        .where('_id', '=', gone)
        .execute();
      // A fresh instance on the same database, whose node cache has never seen the node.
      const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
      const other = await buildApp(h.config, { database: h.database, keys, logger: false });
      try {
        const event = paid(hook, target, 'evt_orphan');
        const answer = await other.server.inject({ method: 'POST', url: `/v1/webhooks/${hook._id}/receive`, payload: event.body, headers: { 'content-type': 'application/json', ...event.headers } });
        expect(answer.json(), answer.body).toMatchObject({ received: true, outcome: 'failed' });
        expect(await statusBySystem(target)).toBe('active');
      } finally {
        await other.server.close();
      }
    });
  });
});
