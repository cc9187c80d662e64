import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../../cli/operator-services.js';
import { loadConfig } from '../../../src/config/config.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { abandonedAttemptError } from '../../../src/webhooks/dispatcher.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { startServer } from '../../support/server-process.js';
import type { ServerProcess } from '../../support/server-process.js';

/*
 * kill -9 of the real service (src/main.ts in a child process) while deliveries are pending
 * and attempts are in flight, then a restart on the same storage: every event committed
 * before the kill still reaches a real HTTP receiver, each under one webhook-id.
 */

interface Hit {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver that holds every request open while `hanging`, and answers 204 otherwise. */
async function receiver() {
  const answered: Hit[] = [];
  const held: ServerResponse[] = [];
  let hanging = true;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      if (hanging) return void held.push(response);
      answered.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    answered,
    /** Requests held open right now (the sender has not given up on them). */
    holding: () => held.filter((response) => !response.destroyed && !response.socket?.destroyed).length,
    recover() {
      hanging = false;
      for (const response of held) response.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const product = (name: string) => ({ name, address: 'Musterstraße 1', city: 'Berlin', zip_code: '10115', total_items: 2 });

describe.each(dialects)('webhook deliveries across kill -9 of the service on %s', (dialect) => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  });

  /** The service on `port`, under the public address `publicUrl` (tokens are issued for it). */
  function start(env: Record<string, string>, port: number, publicUrl = `http://127.0.0.1:${port}`): ServerProcess {
    const server = startServer(port, { ...env, PUBLIC_URL: publicUrl });
    cleanup.push(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      await server.exited;
    });
    return server;
  }

  it('every event committed before the kill is delivered after a restart, each under one webhook-id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'booking-webhook-crash-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const env: Record<string, string> = {
      DATA_DIR: join(dir, 'data'),
      ...(dialect === 'postgres' ? { DATABASE_URL: await freshPostgresUrl(), DB_POOL_SIZE: '6' } : {}),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      // Shortened for the test: 1.5 s per attempt, a retry every second.
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '1').join(','),
      RATE_LIMIT_WRITES: '100000',
      RATE_LIMIT_TOKEN: '100000',
    };

    // Schema, signing keys and a client first, as an operator would with the CLI.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const key = clientKeyPair();
    let client: { clientId: string; kid: string };
    {
      const config = loadConfig({ ...env, PUBLIC_URL: origin, LOG_LEVEL: 'silent' });
      const database = openDatabase(config);
      try {
        await migrateToLatest(database);
        await SigningKeyStore.open({ file: join(config.dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
        const operator = await buildOperatorServices(config, database);
        const tenant = (await operator.createTenant({ name: 'Crash', level: 'tenant', parent: undefined, currency: undefined })) as Record<string, unknown>;
        const publicKeyFile = join(dir, 'client.pub');
        writeFileSync(publicKeyFile, key.publicPem);
        const created = (await operator.createClient({
          name: 'crash test',
          tenant: String(tenant._id),
          capabilities: 'products:create webhooks:create webhooks:read',
          publicKeyFile,
          kid: undefined,
          ipAllow: undefined,
        })) as Record<string, unknown>;
        client = { clientId: String(created.client_id), kid: String(created.kid) };
      } finally {
        await database.close();
      }
    }

    const first = start(env, port);
    await first.waitReady(30_000);
    const tokenAnswer = await fetch(`${origin}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await signAssertion(key, client.clientId, `${origin}/v1/auth/token`, { kid: client.kid }),
      }).toString(),
    });
    expect(tokenAnswer.status).toBe(200);
    const token = String(((await tokenAnswer.json()) as { access_token: string }).access_token);
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await answer.json()) as Record<string, unknown>;
      expect(answer.status, JSON.stringify(json)).toBe(201);
      return json;
    };
    const hook = await post('/v1/webhooks', { url: rx.url, events: ['products.created'] });
    const secret = String(hook.secret);

    // A first batch: the dispatcher picks it up and its attempts hang at the receiver.
    const committed: string[] = [];
    const createBatch = async (label: string) => {
      const created = await Promise.all(Array.from({ length: 8 }, (_, i) => post('/v1/products', product(`${label} ${i}`))));
      committed.push(...created.map((record) => String(record._id)));
    };
    await createBatch('before');
    await until('attempts in flight at the receiver', () => rx.holding() > 0, 10_000);
    // A second batch, committed while those attempts are in flight: its events are in the
    // outbox or pending deliveries when the process dies.
    await createBatch('during');
    // Kill while attempts are held open (a slow machine may be between two retries).
    await until('attempts in flight at the kill', () => rx.holding() > 0, 10_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(rx.answered).toHaveLength(0);

    rx.recover();
    const restartPort = await freePort();
    // Restarted behind the same public address, so the token issued before the kill still works.
    const second = start(env, restartPort, origin);
    await second.waitReady(30_000);
    const delivered = () => new Set(rx.answered.map((hit) => (JSON.parse(hit.body) as { data: { _id: string } }).data._id));
    await until('every committed event at the receiver', () => committed.every((id) => delivered().has(id)), 20_000);

    // Every delivery is signed per Standard Webhooks (the reference library verifies it), and
    // each event went out under exactly one webhook-id, however often that was sent.
    const idsPerRecord = new Map<string, Set<string>>();
    for (const hit of rx.answered) {
      const event = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as { type: string; data: { _id: string } };
      expect(event.type).toBe('products.created');
      const ids = idsPerRecord.get(event.data._id) ?? new Set<string>();
      ids.add(String(hit.headers['webhook-id']));
      idsPerRecord.set(event.data._id, ids);
    }
    expect([...idsPerRecord.keys()].sort()).toEqual([...committed].sort());
    for (const [recordId, ids] of idsPerRecord) expect(ids.size, recordId).toBe(1);

    // The attempts held at the receiver when the process died are recorded as abandoned:
    // each delivery's attempts are numbered 1, 2, … without a gap, its summary counts them
    // all, and its last one succeeded.
    const get = async (path: string) => {
      const answer = await fetch(`http://127.0.0.1:${restartPort}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
      return (await answer.json()) as { items: Record<string, unknown>[] };
    };
    const deliveries = await until(
      'every delivery recorded as succeeded',
      async () => {
        const { items } = await get(`/v1/webhooks/${String(hook._id)}/deliveries?per_page=100`);
        return items.length === committed.length && items.every((delivery) => delivery.status === 'succeeded') && items;
      },
      20_000,
    );
    let abandoned = 0;
    for (const delivery of deliveries) {
      const { items: attempts } = await get(`/v1/webhooks/${String(hook._id)}/deliveries/${String(delivery._id)}/attempts?per_page=100`);
      expect(attempts.map((attempt) => attempt.attempt)).toEqual(attempts.map((_, i) => i + 1));
      expect(delivery.attempts).toBe(attempts.length);
      expect(Number(attempts.at(-1)?.status_code)).toBe(204);
      abandoned += attempts.filter((attempt) => attempt.error === abandonedAttemptError && attempt.status_code === null).length;
    }
    expect(abandoned).toBeGreaterThan(0);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);
});
