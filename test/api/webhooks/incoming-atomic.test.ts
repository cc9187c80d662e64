import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivedLockKey } from '../../../src/webhooks/incoming.js';
import { installAuditActionFailure } from '../../support/audit-action-failure.js';
import type { AuditActionFailure } from '../../support/audit-action-failure.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/**
 * Issue 27 §3: an incoming event's claim, its effect (with the effect's audit entry) and
 * its `done` mark are one transaction, without compensation.
 */
describe.each(dialects)('incoming webhook claim, effect and done in one transaction on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let failure: AuditActionFailure;
  let hookId: string;
  let sender: Webhook;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Atomic payments'), [...crud('products'), ...crud('orders'), 'webhooks:create', 'webhooks:read']);
    failure = await installAuditActionFailure(h.database);
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } });
    expect(created.statusCode, created.body).toBe(201);
    hookId = String(created.json()._id);
    sender = new Webhook(String(created.json().secret));
  });
  afterAll(() => h.close());

  async function order(): Promise<string> {
    const product = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
    const created = await h.request({ method: 'POST', url: '/v1/orders', token, body: { product_id: product.json()._id, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z' } });
    expect(created.statusCode, created.body).toBe(201);
    return String(created.json()._id);
  }
  const statusOf = async (id: string) => (await h.request({ method: 'GET', url: `/v1/orders/${id}`, token })).json().status as string;
  const claimOf = (eventId: string) => h.database.db.selectFrom('webhook_received').selectAll().where('webhook_id', '=', hookId).where('event_id', '=', eventId).executeTakeFirst();
  const orderUpdates = async (id: string) => await h.database.db.selectFrom('audit_logs').select(['actor_type', 'actor_id']).where('record_id', '=', id).where('action', '=', 'update').execute();

  /** A signed `orders.paid` delivery of `eventId` for `orderId`. */
  function paid(eventId: string, orderId: string) {
    const body = JSON.stringify({ type: 'orders.paid', timestamp: new Date().toISOString(), data: { order_id: orderId } });
    const at = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': sender.sign(eventId, at, body) };
    return () => h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/receive`, body, headers });
  }

  it('a failure in the effect (its audit insert) leaves no claim, no done mark, no order change and no audit entry; the retry applies once', async () => {
    const orderId = await order();
    const deliver = paid('msg_atomic_1', orderId);
    await failure.during('update', async () => {
      const failed = await deliver();
      expectProblem(failed, 500, 'internal_error');
      expect(failed.body).not.toMatch(/injected|audit_logs|trigger/i);
    });
    expect(await claimOf('msg_atomic_1')).toBeUndefined();
    expect(await statusOf(orderId)).not.toBe('confirmed');
    expect(await orderUpdates(orderId)).toEqual([]);
    const listed = (await h.request({ method: 'GET', url: `/v1/webhooks/${hookId}/received`, token })).json() as { items: { _id: string }[] };
    expect(listed.items.map((item) => item._id)).not.toContain('msg_atomic_1');

    // The sender's retry finds nothing claimed and applies the effect, once.
    const retried = await deliver();
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ outcome: 'applied' });
    expect(retried.json()).not.toHaveProperty('duplicate');
    expect(await claimOf('msg_atomic_1')).toMatchObject({ state: 'done', outcome: 'applied' });
    expect(await statusOf(orderId)).toBe('confirmed');
    expect(await orderUpdates(orderId)).toEqual([{ actor_type: 'webhook', actor_id: hookId }]);
    const duplicate = await deliver();
    expect(duplicate.json()).toMatchObject({ duplicate: true, outcome: 'applied' });
    expect(await orderUpdates(orderId)).toHaveLength(1);
  });

  it("a repeat while the first delivery's transaction runs answers 409 and changes nothing (PostgreSQL; SQLite serialises writers)", async () => {
    const orderId = await order();
    const deliver = paid('msg_atomic_2', orderId);
    if (h.database.dialect.supportsRowLocks) {
      let release = () => undefined as void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken = () => undefined as void;
      const lockTaken = new Promise<void>((resolve) => (taken = resolve));
      const first = h.database.db.transaction().execute(async (trx) => {
        expect(await h.database.dialect.tryTransactionLock(trx, receivedLockKey(hookId, 'msg_atomic_2'))).toBe(true);
        taken();
        await held;
      });
      await lockTaken;
      const repeat = await deliver();
      expectProblem(repeat, 409, 'conflict');
      expect(repeat.headers['retry-after']).toBe('1');
      release();
      await first;
      expect(await claimOf('msg_atomic_2')).toBeUndefined();
      expect(await statusOf(orderId)).not.toBe('confirmed');
    }
    const answers = await Promise.all([deliver(), deliver()]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual(answers.some((a) => a.statusCode === 409) ? [200, 409] : [200, 200]);
    expect(await orderUpdates(orderId)).toHaveLength(1);
    expect(await claimOf('msg_atomic_2')).toMatchObject({ state: 'done', outcome: 'applied' });
  });
});
