import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxInFlight, maxInFlightPerWebhook } from '../../../src/webhooks/dispatcher.js';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { until } from '../../support/server-process.js';

/** A receiver whose `/slow` holds every request until released, and whose `/fast` answers at once. */
async function receiver() {
  const held: ServerResponse[] = [];
  let mostHeld = 0;
  const fast: number[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/slow') {
        held.push(response);
        mostHeld = Math.max(mostHeld, held.length);
        response.on('close', () => held.splice(held.indexOf(response), 1));
        return;
      }
      fast.push(Date.now());
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    held,
    fast,
    mostHeld: () => mostHeld,
    release: () => {
      for (const response of [...held]) response.writeHead(204).end();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const product = (n: number) => ({ name: `Room ${n}`, address: 'a', city: 'c', zip_code: '1', total_items: 1 });

describe.each(dialects)('outgoing webhooks share the instance fairly on %s', (dialect) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let token: string;

  beforeAll(async () => {
    rx = await receiver();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0', WEBHOOK_TIMEOUT_MS: '20000' } });
    token = await h.bearer(await h.tenant('Fair'), [...crud('products'), 'webhooks:create']);
  });
  afterAll(async () => {
    rx.release();
    await h.app.dispatcher.stop();
    await h.close();
    await rx.close();
  });

  it('a slow receiver with a backlog holds at most its share of attempts; another webhook is served meanwhile', async () => {
    for (const [path, event] of [
      ['/slow', 'products.created'],
      ['/fast', 'products.updated'],
    ] as const) {
      const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: rx.url(path), events: [event] } });
      expect(created.statusCode, created.body).toBe(201);
    }
    // A backlog for the slow receiver larger than all the instance's slots...
    const ids: { id: string; etag: string }[] = [];
    for (let n = 0; n < maxInFlight + 16; n++) {
      const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product(n) });
      ids.push({ id: (created.json() as { _id: string })._id, etag: String(created.headers.etag) });
    }
    h.app.dispatcher.start(20);
    await until(() => rx.held.length >= maxInFlightPerWebhook, 'the slow receiver holding its share');

    // ...then one event for the other webhook, queued behind all of it.
    const first = ids[0] as { id: string; etag: string };
    const updated = await h.request({ method: 'PATCH', url: `/v1/products/${first.id}`, token, headers: { 'if-match': first.etag }, body: { name: 'Room zero' } });
    expect(updated.statusCode, updated.body).toBe(200);
    await until(() => rx.fast.length === 1, 'the other webhook’s delivery while the slow one is held', 10_000);
    expect(rx.held.length).toBe(maxInFlightPerWebhook);
    expect(rx.mostHeld()).toBe(maxInFlightPerWebhook);

    // Released, the backlog drains, never more than the share at once.
    const releasing = setInterval(() => rx.release(), 20);
    try {
      const succeeded = async () =>
        Number(
          (
            await h.database.db
              .selectFrom('webhook_deliveries')
              .select(({ fn }) => fn.countAll().as('n'))
              .where('status', '=', 'succeeded')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const deadline = Date.now() + 20_000;
      while ((await succeeded()) < ids.length + 1) {
        if (Date.now() > deadline) throw new Error(`${await succeeded()} of ${ids.length + 1} deliveries succeeded within 20 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      clearInterval(releasing);
    }
    expect(rx.mostHeld()).toBe(maxInFlightPerWebhook);
  }, 60_000);
});
