import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

interface Hit {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real HTTP receiver; `answers[path]` are popped per request to that path (default 204). */
async function receiver() {
  const hits: Hit[] = [];
  const answers: Record<string, number[]> = {};
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      hits.push({ path: request.url ?? '', headers: request.headers, body });
      if (request.url === '/redirect') return void response.writeHead(307, { location: '/products' }).end();
      // The first call to /slow answers after the service's timeout (2 s in these tests).
      if (request.url === '/slow' && hits.filter((hit) => hit.path === '/slow').length === 1) return void setTimeout(() => response.writeHead(204).end(), 2500);
      response.writeHead(answers[request.url ?? '']?.shift() ?? 204).end('x'.repeat(5000));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: (path: string) => `http://127.0.0.1:${port}${path}`, hits, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const product = { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 };
const webhookCaps = ['webhooks:create', 'webhooks:read', 'webhooks:list', 'webhooks:update', 'webhooks:rotate-secret', 'webhooks:retry', 'webhooks:test'];

describe.each(dialects)('outgoing webhooks on %s', (dialect) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let token: string;
  let otherToken: string;

  beforeAll(async () => {
    rx = await receiver();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0,0', WEBHOOK_TIMEOUT_MS: '2000' } });
    token = await h.bearer(await h.tenant('Hooks'), [...crud('products'), ...webhookCaps]);
    otherToken = await h.bearer(await h.tenant('Elsewhere'), [...crud('products'), ...webhookCaps]);
  });
  afterAll(async () => {
    await h.close();
    await rx.close();
  });

  async function subscribe(path: string, events: string[], bearer = token) {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token: bearer, body: { url: rx.url(path), events } });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { _id: string; secret: string };
  }
  const deliveries = async (id: string, bearer = token) =>
    (await h.request({ method: 'GET', url: `/v1/webhooks/${id}/deliveries`, token: bearer })).json() as {
      items: { _id: string; status: string; attempts: number; type: string; last_status_code: number | null }[];
      total: number;
    };

  it('shows the secret once, refuses unknown events and non-public addresses, lists the catalogue', async () => {
    const hook = await subscribe('/once', ['products.created']);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await h.request({ method: 'GET', url: `/v1/webhooks/${hook._id}`, token });
    expect(read.json()).not.toHaveProperty('secret');
    const audit = await h.database.db.selectFrom('audit_logs').select(['new_values']).where('record_id', '=', hook._id).executeTakeFirstOrThrow();
    expect(JSON.stringify(audit)).not.toContain(hook.secret.slice(6, 20));
    expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: rx.url('/x'), events: ['products.exploded'] } }), 400, 'validation_failed');
    expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: 'http://10.0.0.7/hook', events: ['ping'] } }), 400, 'validation_failed');
    expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: 'ftp://127.0.0.1/hook', events: ['ping'] } }), 400, 'validation_failed');
    const catalogue = (await h.request({ method: 'GET', url: '/v1/webhooks/events', token })).json() as { items: string[] };
    expect(catalogue.items).toEqual(expect.arrayContaining(['bookings.created', 'products.deleted', 'users.erased', 'ping']));
    expect(catalogue.items).not.toContain('audit-logs.created');
  });

  it('delivers each committed change once, signed per Standard Webhooks, only to subscribers of its tenant', async () => {
    const hook = await subscribe('/products', ['products.created', 'products.updated']);
    const elsewhere = await subscribe('/elsewhere', ['products.created'], otherToken);
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    await h.app.dispatcher.runOnce();
    const hits = rx.hits.filter((hit) => hit.path === '/products');
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    // The reference implementation verifies our signature.
    const verified = new Webhook(hook.secret).verify(hit?.body ?? '', hit?.headers as Record<string, string>) as { type: string; data: { _id: string } };
    expect(verified.type).toBe('products.created');
    expect(verified.data._id).toBe(created.json()._id);
    expect(rx.hits.filter((h2) => h2.path === '/elsewhere')).toHaveLength(0);
    expect((await deliveries(hook._id)).items[0]).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 204, type: 'products.created' });
    // Another tenant sees neither the webhook nor its deliveries.
    expectProblem(await h.request({ method: 'GET', url: `/v1/webhooks/${hook._id}/deliveries`, token: otherToken }), 404, 'not_found');
    expect((await deliveries(elsewhere._id, otherToken)).total).toBe(0);
    // A second run sends nothing again.
    await h.app.dispatcher.runOnce();
    expect(rx.hits.filter((hit2) => hit2.path === '/products')).toHaveLength(1);
  });

  it('retries failures on the schedule with a stable webhook-id, and gives up after the last retry', async () => {
    const hook = await subscribe('/flaky', ['products.updated']);
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: product });
    rx.answers['/flaky'] = [500, 503];
    await h.request({ method: 'PATCH', url: `/v1/products/${created.json()._id}`, token, body: { city: 'x' }, headers: { 'if-match': String(created.headers.etag) } });
    for (let i = 0; i < 3; i++) await h.app.dispatcher.runOnce();
    const hits = rx.hits.filter((hit) => hit.path === '/flaky');
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((hit) => hit.headers['webhook-id'])).size).toBe(1);
    // Each of the three attempts carries a signature the reference library verifies.
    for (const hit of hits) expect((new Webhook(hook.secret).verify(hit.body, hit.headers as Record<string, string>) as { type: string }).type).toBe('products.updated');
    expect((await deliveries(hook._id)).items[0]).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 204 });

    const doomed = await subscribe('/down', ['ping']);
    rx.answers['/down'] = [500, 500, 500];
    expect((await h.request({ method: 'POST', url: `/v1/webhooks/${doomed._id}/test`, token })).statusCode).toBe(202);
    for (let i = 0; i < 4; i++) await h.app.dispatcher.runOnce();
    const [failed] = (await deliveries(doomed._id)).items;
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });
    // Retry now: a new attempt, which succeeds.
    expect((await h.request({ method: 'POST', url: `/v1/webhooks/${doomed._id}/deliveries/${failed?._id}/retry`, token })).statusCode).toBe(202);
    await h.app.dispatcher.runOnce();
    expect((await deliveries(doomed._id)).items[0]).toMatchObject({ status: 'succeeded', attempts: 4 });
    // The full list query language applies to deliveries.
    const filtered = await h.request({
      method: 'GET',
      url: `/v1/webhooks/${hook._id}/deliveries?where=${encodeURIComponent('{"attempts":{"$gte":3},"status":"succeeded"}')}&fields=status,attempts&sort=-attempts`,
      token,
    });
    expect(filtered.statusCode, filtered.body).toBe(200);
    expect(filtered.json().items).toEqual([{ _id: expect.any(String), status: 'succeeded', attempts: 3 }]);
    expect(filtered.headers['x-total-count']).toBe('1');
    expect((await h.request({ method: 'GET', url: `/v1/webhooks/${hook._id}/deliveries?status=failed`, token })).json().total).toBe(0);
    expectProblem(await h.request({ method: 'GET', url: `/v1/webhooks/${hook._id}/deliveries?where=${encodeURIComponent('{"payload":{"$regex":"x"}}')}`, token }), 400, 'validation_failed');
  });

  it('410 Gone disables the webhook; a rotated secret signs alongside the old one for 24 h', async () => {
    const gone = await subscribe('/gone', ['ping']);
    rx.answers['/gone'] = [410];
    await h.request({ method: 'POST', url: `/v1/webhooks/${gone._id}/test`, token });
    await h.app.dispatcher.runOnce();
    expect((await h.request({ method: 'GET', url: `/v1/webhooks/${gone._id}`, token })).json().active).toBe(false);

    const hook = await subscribe('/rotated', ['ping']);
    const rotated = await h.request({ method: 'POST', url: `/v1/webhooks/${hook._id}/rotate-secret`, token });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().secret as string;
    expect(fresh).not.toBe(hook.secret);
    await h.request({ method: 'POST', url: `/v1/webhooks/${hook._id}/test`, token });
    await h.app.dispatcher.runOnce();
    const hit = rx.hits.filter((h2) => h2.path === '/rotated').at(-1);
    expect(String(hit?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [fresh, hook.secret]) expect(() => new Webhook(secret).verify(hit?.body ?? '', hit?.headers as Record<string, string>)).not.toThrow();
  });

  it('sends no ping from an incoming webhook (404, nothing queued), and fails the ping of an inactive one at once', async () => {
    const incoming = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } });
    expect(incoming.statusCode, incoming.body).toBe(201);
    const ping = await h.request({ method: 'POST', url: `/v1/webhooks/${incoming.json()._id}/test`, token });
    expectProblem(ping, 404, 'not_found');
    expect((await deliveries(incoming.json()._id)).total).toBe(0);

    const idle = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: rx.url('/idle'), events: ['ping'], active: false } });
    expect(idle.statusCode, idle.body).toBe(201);
    expect((await h.request({ method: 'POST', url: `/v1/webhooks/${idle.json()._id}/test`, token })).statusCode).toBe(202);
    await h.app.dispatcher.runOnce();
    const [queued] = (await deliveries(idle.json()._id)).items;
    expect(queued).toMatchObject({ status: 'failed', attempts: 0, last_error: 'webhook deleted or inactive' });
    expect(rx.hits.some((hit) => hit.path === '/idle')).toBe(false);
  });

  it('gives a slow receiver WEBHOOK_TIMEOUT_MS, then retries', async () => {
    const hook = await subscribe('/slow', ['ping']);
    await h.request({ method: 'POST', url: `/v1/webhooks/${hook._id}/test`, token });
    await h.app.dispatcher.runOnce();
    const [first] = (await deliveries(hook._id)).items;
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(String((first as { last_error?: string }).last_error)).toContain('no answer within 2000 ms');
    await h.app.dispatcher.runOnce();
    expect((await deliveries(hook._id)).items[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('never follows a redirect, keeps only the start of an answer, and reports deliveries on /metrics', async () => {
    const hook = await subscribe('/redirect', ['ping']);
    await h.request({ method: 'POST', url: `/v1/webhooks/${hook._id}/test`, token });
    const before = rx.hits.filter((hit) => hit.path === '/products').length;
    await h.app.dispatcher.runOnce();
    expect(rx.hits.filter((hit) => hit.path === '/redirect')).toHaveLength(1);
    expect(rx.hits.filter((hit) => hit.path === '/products')).toHaveLength(before);
    expect((await deliveries(hook._id)).items[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 307 });
    const stored = await h.database.db.selectFrom('webhook_deliveries').select('last_error').where('webhook_id', '=', hook._id).executeTakeFirstOrThrow();
    expect(String(stored.last_error).length).toBeLessThanOrEqual(1024);
    const metrics = (await h.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/webhook_deliveries_total\{outcome="retrying"\} [1-9]/);
    expect(metrics).toMatch(/webhook_queue_depth [1-9]/);
    expect(metrics).toMatch(/webhook_oldest_pending_age_seconds \d/);
  });
});

describe('webhook URLs without WEBHOOK_ALLOW_HTTP', () => {
  it('accept https only, and refuse loopback and private addresses', async () => {
    const h = await createHarness('sqlite');
    try {
      const token = await h.bearer(await h.tenant('Strict'), ['webhooks:create']);
      for (const url of ['http://93.184.216.34/hook', 'https://127.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://10.0.0.1/x', 'https://[::ffff:127.0.0.1]/x']) {
        expectProblem(await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url, events: ['ping'] } }), 400, 'validation_failed');
      }
      expect((await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: 'https://93.184.216.34/hook', events: ['ping'] } })).statusCode).toBe(201);
    } finally {
      await h.close();
    }
  });
});
