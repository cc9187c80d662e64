import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../../src/db/dialect.js';
import { DataKey } from '../../../src/security/data-key.js';
import { systemClock } from '../../../src/core/clock.js';
import { AddressGuard } from '../../../src/lib/address-guard.js';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.js';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const marker = 'rollback-after-outbox';

/**
 * Fails a write at its very end: after its outbox row is inserted (an AFTER INSERT trigger on
 * outbox_events), so the record, its audit entry and its event were all written and are then
 * rolled back together.
 */
const failAfterOutbox: Record<DialectName, readonly RawBuilder<unknown>[]> = {
  sqlite: [sql.raw(`create trigger fail_after_outbox after insert on outbox_events when new.data like '%${marker}%' begin select raise(abort, 'injected failure after the outbox insert'); end`)],
  postgres: [
    sql.raw(
      `create function fail_after_outbox() returns trigger language plpgsql as $$ begin if new.data::text like '%${marker}%' then raise exception 'injected failure after the outbox insert'; end if; return new; end $$`,
    ),
    sql`create trigger fail_after_outbox after insert on outbox_events for each row execute function fail_after_outbox()`,
  ],
};

interface Hit {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe.each(dialects)('webhook events under 8 concurrent writers on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let port: number;
  const hits: Hit[] = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      hits.push({ path: request.url ?? '', headers: request.headers, body });
      response.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    port = await freePort();
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0,0,0' } });
    token = await h.bearer(await h.tenant('Writers'), [...crud('products'), 'webhooks:create']);
    for (const statement of failAfterOutbox[dialect]) await statement.execute(h.database.db);
  });
  afterAll(async () => {
    await h.app.dispatcher.stop();
    await h.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('the receiver gets exactly one event per committed write and none for rolled-back ones, while the dispatcher runs alongside', async () => {
    const created = await h.request({
      method: 'POST',
      url: '/v1/webhooks',
      token,
      body: { url: `http://127.0.0.1:${port}/events`, events: ['products.created', 'products.updated', 'products.deleted'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const secret = String(created.json().secret);
    // The dispatcher polls while the writers write, so it would see any event it should not.
    h.app.dispatcher.start(10);

    const committed: string[] = [];
    let rolledBack = 0;
    const writer = async (w: number) => {
      for (let i = 0; i < 6; i++) {
        const poisoned = (w + i) % 4 === 0;
        const body = { name: poisoned ? `w${w}-${i} ${marker}` : `w${w}-${i}`, address: 'a', city: 'c', zip_code: '1', total_items: 1 };
        const made = await h.request({ method: 'POST', url: '/v1/products', token, body });
        if (poisoned) {
          expect(made.statusCode, made.body).toBe(500);
          rolledBack++;
          continue;
        }
        expect(made.statusCode, made.body).toBe(201);
        const id = String(made.json()._id);
        committed.push(`products.created ${id}`);
        const failUpdate = i % 3 === 1;
        const updated = await h.request({
          method: 'PATCH',
          url: `/v1/products/${id}`,
          token,
          body: { city: failUpdate ? marker : `city ${w}-${i}` },
          headers: { 'if-match': String(made.headers.etag) },
        });
        expect(updated.statusCode, updated.body).toBe(failUpdate ? 500 : 200);
        if (failUpdate) rolledBack++;
        else committed.push(`products.updated ${id}`);
        if (i % 2 === 0) {
          const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(failUpdate ? made.headers.etag : updated.headers.etag) } });
          expect(deleted.statusCode, deleted.body).toBe(204);
          committed.push(`products.deleted ${id}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(rolledBack).toBeGreaterThan(8);

    const deadline = Date.now() + 15_000;
    while (hits.length < committed.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await h.app.dispatcher.stop();
    // Anything still pending would be sent now; nothing may be.
    await h.app.dispatcher.runOnce();

    const received = hits
      .filter((hit) => hit.path === '/events')
      .map((hit) => {
        const event = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as { type: string; data: { _id: string; name: string; city: string } };
        expect(`${event.data.name} ${event.data.city}`).not.toContain(marker);
        return { key: `${event.type} ${event.data._id}`, id: String(hit.headers['webhook-id']) };
      });
    expect(received.map((r) => r.key).sort()).toEqual([...committed].sort());
    expect(new Set(received.map((r) => r.id)).size).toBe(committed.length);
    const deliveries = await h.database.db.selectFrom('webhook_deliveries').select(['status']).where('webhook_id', '=', String(created.json()._id)).execute();
    expect(deliveries).toHaveLength(committed.length);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
  }, 60_000);
  it('two dispatchers (two instances) polling the same database send each attempt once', async () => {
    // A tenant of its own: only this webhook subscribes to its events.
    const raceToken = await h.bearer(await h.tenant('Race'), [...crud('products'), 'webhooks:create']);
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: raceToken, body: { url: `http://127.0.0.1:${port}/race`, events: ['products.created'] } });
    expect(created.statusCode, created.body).toBe(201);
    const sent = [0, 0];
    const instance = (n: 0 | 1) =>
      new WebhookDispatcher({
        database: h.database,
        clock: systemClock,
        dataKey: DataKey.open(h.config),
        guard: new AddressGuard(['127.0.0.1/32']),
        timeoutMs: 2000,
        retrySchedule: [0, 0, 0],
        log: h.app.server.log,
        onAttempt: () => (sent[n] = (sent[n] ?? 0) + 1),
      });
    const instances = [instance(0), instance(1)];
    for (const dispatcher of instances) dispatcher.start(5);
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 10; i++)
          ids.push(
            String((await h.request({ method: 'POST', url: '/v1/products', token: raceToken, body: { name: `race ${w}-${i}`, address: 'a', city: 'c', zip_code: '1', total_items: 1 } })).json()._id),
          );
      }),
    );
    const race = () => hits.filter((hit) => hit.path === '/race');
    const deadline = Date.now() + 15_000;
    while (race().length < ids.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    // stop() waits for the round in progress and every send in flight: a second send of any
    // attempt has arrived by the time it returns, and none can start after it.
    await Promise.all(instances.map((dispatcher) => dispatcher.stop()));
    const delivered = race().map((hit) => (JSON.parse(hit.body) as { data: { _id: string } }).data._id);
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(new Set(race().map((hit) => hit.headers['webhook-id'])).size).toBe(ids.length);
    expect((sent[0] ?? 0) + (sent[1] ?? 0), `sent by each: ${sent.join(' + ')}`).toBe(ids.length);
  }, 60_000);
});
