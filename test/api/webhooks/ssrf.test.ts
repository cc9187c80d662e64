import type { lookup } from 'node:dns';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config/config.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { DataKey } from '../../../src/security/data-key.js';
import { systemClock } from '../../../src/core/clock.js';
import { AddressGuard } from '../../../src/lib/address-guard.js';
import { WebhookDispatcher } from '../../../src/webhooks/dispatcher.js';
import { checkWebhookUrl } from '../../../src/webhooks/webhook-hooks.js';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/** A local webhook receiver that answers 204 and records the path of every request it gets. */
function recordingReceiver() {
  const hits: string[] = [];
  const receiver = createServer((request, response) => {
    hits.push(request.url ?? '');
    request.resume();
    response.writeHead(204).end();
  });
  return { hits, receiver };
}

/** A resolver standing in for DNS: every name resolves to what `answer()` says right now. */
function resolverAnswering(answer: () => string): typeof lookup {
  return ((_host: string, _options: unknown, callback: (error: null, addresses: { address: string; family: number }[]) => void) => {
    const address = answer();
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  }) as unknown as typeof lookup;
}

/** Non-public targets in the spellings an attacker would try (decimal, octal, hex, IPv4-mapped IPv6). */
const refusedUrls = [
  'http://127.0.0.1/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://[::1]/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/hook',
  'http://2130706433/hook',
  'http://0177.0.0.1/hook',
  'http://0x7f.0.0.1/hook',
  'http://0x7f000001/hook',
  'http://017700000001/hook',
  'http://100.64.0.1/hook',
  'http://[fd00::1]/hook',
];

describe('webhook URLs resolving to internal addresses at creation (injected resolver)', () => {
  it('a hostname that resolves to 10.0.0.1 (or a mapped loopback) is refused; one resolving to a public address is accepted', async () => {
    let answer = '10.0.0.1';
    const policy = {
      allowHttp: true,
      guard: new AddressGuard(
        [],
        resolverAnswering(() => answer),
      ),
      dataKey: DataKey.open({ dataKey: Buffer.alloc(32, 7).toString('base64'), dataDir: '/nonexistent' }),
    };
    expect(await checkWebhookUrl('http://hooks.partner.example/in', policy)).toMatch(/non-public address/);
    answer = '::ffff:127.0.0.1';
    expect(await checkWebhookUrl('https://hooks.partner.example/in', policy)).toMatch(/non-public address/);
    answer = '169.254.169.254';
    expect(await checkWebhookUrl('https://hooks.partner.example/in', policy)).toMatch(/non-public address/);
    answer = '93.184.216.34';
    expect(await checkWebhookUrl('https://hooks.partner.example/in', policy)).toBeUndefined();
  });
});

describe.each(dialects)('SSRF guard of outgoing webhooks on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let receiverPort: number;
  const { hits, receiver } = recordingReceiver();

  beforeAll(async () => {
    receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    // http allowed (so only the address decides), no WEBHOOK_ALLOWED_NETWORKS: the production posture.
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0', WEBHOOK_TIMEOUT_MS: '2000' } });
    token = await h.bearer(await h.tenant('Guarded'), ['webhooks:create', 'webhooks:read', 'webhooks:test']);
  });
  afterAll(async () => {
    await h.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('refuses loopback, metadata, private, CGNAT, ULA, IPv4-mapped and decimal/octal/hex forms at creation', async () => {
    // Counted before and after: the other tests here create webhooks of their own.
    const stored = async () => (await h.database.db.selectFrom('webhooks').select('url').execute()).length;
    const before = await stored();
    for (const url of refusedUrls) {
      const answer = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url, events: ['ping'] } });
      const problem = expectProblem(answer, 400, 'validation_failed');
      expect(JSON.stringify(problem), url).toContain('non-public');
    }
    expect(await stored()).toBe(before);
  });

  it('at delivery, connects only to an address it checked: a name that now resolves inside is refused at the socket', async () => {
    // Not resolvable by real DNS at creation (accepted: every delivery checks again).
    const created = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: `http://rebinding.test:${receiverPort}/hook`, events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    expect((await h.request({ method: 'POST', url: `/v1/webhooks/${hookId}/test`, token })).statusCode).toBe(202);

    let answer = '10.0.0.1';
    const dispatcher = (allowed: string[]) =>
      new WebhookDispatcher({
        database: h.database,
        clock: systemClock,
        dataKey: DataKey.open(h.config),
        guard: new AddressGuard(
          allowed,
          resolverAnswering(() => answer),
        ),
        timeoutMs: h.config.webhookTimeoutMs,
        retrySchedule: h.config.webhookRetrySchedule,
        log: h.app.server.log,
      });
    const lastError = async () => await h.database.db.selectFrom('webhook_deliveries').select(['last_error', 'attempts', 'status']).where('webhook_id', '=', hookId).executeTakeFirstOrThrow();
    const strict = dispatcher([]);
    for (const internal of ['10.0.0.1', '127.0.0.1', '::ffff:127.0.0.1', '169.254.169.254']) {
      answer = internal;
      await strict.runOnce();
      expect(String((await lastError()).last_error), internal).toContain('EADDRNOTALLOWED');
    }
    expect(await lastError()).toMatchObject({ attempts: 4, status: 'pending' });
    expect(hits).toEqual([]);

    // Control: the same name, now resolving to the receiver's loopback address, which this
    // dispatcher's WEBHOOK_ALLOWED_NETWORKS opens. The request arrives, so the socket did
    // connect to the address the guarded lookup returned (real DNS knows no such name).
    answer = '127.0.0.1';
    await dispatcher(['127.0.0.1/32']).runOnce();
    expect(hits).toEqual(['/hook']);
    expect(await lastError()).toMatchObject({ attempts: 5, status: 'succeeded', last_error: null });
  });
});

describe.each(dialects)('an IP-literal webhook once WEBHOOK_ALLOWED_NETWORKS no longer allows it, on %s', (dialect) => {
  // Retries due at once, so each runOnce below attempts the delivery again.
  const settings = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '0,0,0', WEBHOOK_TIMEOUT_MS: '2000' };
  let allowing: Harness;
  let receiverPort: number;
  const { hits, receiver } = recordingReceiver();

  beforeAll(async () => {
    receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    allowing = await createHarness(dialect, { env: { ...settings, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
  });
  afterAll(async () => {
    await allowing.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('is created while allowed; the service restarted with the setting narrowed refuses the delivery and the receiver gets nothing', async () => {
    const token = await allowing.bearer(await allowing.tenant('Narrowed'), ['webhooks:create', 'webhooks:read', 'webhooks:test']);
    const created = await allowing.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: `http://127.0.0.1:${receiverPort}/literal`, events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const hookId = String(created.json()._id);
    const pinged = await allowing.request({ method: 'POST', url: `/v1/webhooks/${hookId}/test`, token });
    expect(pinged.statusCode, pinged.body).toBe(202);
    const deliveryId = String(pinged.json().delivery_id);

    // The same service (database, data directory, keys) started again without the allowance.
    const { dataDir } = allowing.config;
    const narrowedConfig = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://api.test', LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', ...settings });
    expect(narrowedConfig.webhookAllowedNetworks).toEqual([]);
    const keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    const narrowed = await buildApp(narrowedConfig, { database: allowing.database, keys, logger: false });
    try {
      await narrowed.server.ready();
      await narrowed.dispatcher.runOnce();
    } finally {
      await narrowed.server.close();
    }
    expect(hits).toEqual([]);
    const refusal = 'EADDRNOTALLOWED: 127.0.0.1 is an address webhooks may not reach';
    const deliveries = (await allowing.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries`, token })).json() as { items: Record<string, unknown>[] };
    expect(deliveries.items).toHaveLength(1);
    expect(deliveries.items[0]).toMatchObject({ _id: deliveryId, status: 'pending', attempts: 1, last_status_code: null, last_error: refusal });
    const attempts = (await allowing.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries/${deliveryId}/attempts`, token })).json() as { items: Record<string, unknown>[] };
    expect(attempts.items).toMatchObject([{ attempt: 1, status_code: null, error: refusal }]);

    // Control: the allowing service delivers the very same delivery to the receiver.
    await allowing.app.dispatcher.runOnce();
    expect(hits).toEqual(['/literal']);
    const after = (await allowing.request({ method: 'GET', url: `/v1/webhooks/${hookId}/deliveries`, token })).json() as { items: Record<string, unknown>[] };
    expect(after.items[0]).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 204, last_error: null });
  });
});
