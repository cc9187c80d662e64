import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../../cli/operator-services.js';
import { loadConfig } from '../../../src/config/config.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { dpopKey, dpopProof } from '../../support/dpop.js';
import { freePort } from '../../support/free-port.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import type { TestKeyPair } from '../../support/keys.js';
import { startPgbouncer } from '../../support/pgbouncer.js';
import type { PgBouncer } from '../../support/pgbouncer.js';
import { startCluster } from '../../support/postgres-cluster.js';
import type { Cluster } from '../../support/postgres-cluster.js';
import { logLines, startServer, until } from '../../support/server-process.js';
import type { ServerProcess } from '../../support/server-process.js';

/*
 * docs/operations.md, "Through PgBouncer", with real processes: two service instances whose
 * DATABASE_URL is a PgBouncer in transaction mode in front of one PostgreSQL cluster, and
 * whose DATABASE_DIRECT_URL reaches the cluster itself (LISTEN, migrations). Ten server
 * connections serve both instances' pools (8 each), so one client's consecutive
 * transactions land on different server connections: any session state would leak or be
 * lost. The instances are called directly (no load balancer needed to pick one); both are
 * configured with one PUBLIC_URL, as behind a balancer.
 */

const publicUrl = 'http://booking.test';
const form = 'application/x-www-form-urlencoded';
const assertionType = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface Client {
  readonly clientId: string;
  readonly kid: string;
  readonly key: TestKeyPair;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

const seen: number[] = [];

async function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  const text = await response.text();
  seen.push(response.status);
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const product = (name: string) => ({ name, description: 'Quiet', address: 'Musterstraße 1', city: 'Berlin', zip_code: '10115', country: 'DE', total_items: 4 });

/** Polls `probe` (every 100 ms) until it answers something; fails naming `what` after `timeoutMs`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('two instances through PgBouncer (transaction pooling) on one PostgreSQL', () => {
  let dir: string;
  let cluster: Cluster;
  let bouncer: PgBouncer;
  let direct: pg.Client;
  const instances: ServerProcess[] = [];
  const clients = new Map<string, Client>();
  const hits: { id: string; traceparent: string | undefined }[] = [];
  let receiver: Server;
  let receiverUrl: string;

  const tokenForm = async (client: Client) =>
    new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_assertion_type: assertionType,
      client_assertion: await signAssertion(client.key, client.clientId, `${publicUrl}/v1/auth/token`, { kid: client.kid }),
    }).toString();

  const token = async (name: string, on: ServerProcess): Promise<string> => {
    const answer = await send(`${on.origin}/v1/auth/token`, { method: 'POST', headers: { 'content-type': form }, body: await tokenForm(clients.get(name) as Client) });
    if (answer.status !== 200) throw new Error(`token for ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return String(answer.body.access_token);
  };

  const both = () => instances as [ServerProcess, ServerProcess];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-pgbouncer-deploy-'));
    cluster = await startCluster();
    bouncer = await startPgbouncer(cluster.url, 10);
    direct = new pg.Client({ connectionString: cluster.url });
    await direct.connect();
    receiver = createServer((req, res) => {
      hits.push({ id: String(req.headers['webhook-id']), traceparent: req.headers.traceparent as string | undefined });
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    const receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
    const env = {
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: bouncer.url,
      DATABASE_DIRECT_URL: cluster.url,
      DB_POOL_SIZE: '8',
      PUBLIC_URL: publicUrl,
      DPOP_NONCE_SECRET: 'x'.repeat(40),
      RATE_LIMIT_READS: '100000',
      RATE_LIMIT_WRITES: '100000',
      RATE_LIMIT_TOKEN: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      SHUTDOWN_GRACE_MS: '2000',
    };
    // Schema (over the direct URL, as the service does), keys and clients first.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const database = openPostgres({ connectionString: bouncer.url, directConnectionString: cluster.url, poolSize: 2, statementTimeoutMs: 5000 });
    try {
      await migrateToLatest(database);
      await SigningKeyStore.open({ file: join(env.DATA_DIR, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
      const operator = await buildOperatorServices(config, database);
      const tenant = await operator.createTenant({ name: 'Acme', level: 'partner', parent: undefined, currency: undefined });
      const tenantId = String((tenant as Record<string, unknown>)._id);
      const make = async (name: string, owner: string, capabilities: string) => {
        const key = clientKeyPair();
        const file = join(dir, `${name}.pub`);
        writeFileSync(file, key.publicPem);
        const created = (await operator.createClient({ name, tenant: owner, capabilities, publicKeyFile: file, kid: undefined, ipAllow: undefined })) as Record<string, unknown>;
        clients.set(name, { clientId: String(created.client_id), kid: String(created.kid), key });
      };
      await make('writer', tenantId, 'products:list products:read products:create webhooks:create webhooks:read');
      await make('victim', tenantId, 'products:list');
      // It holds what the victim holds: a caller manages no client stronger than itself (the grant ceiling).
      await make('admin', 'system', 'api-clients:read api-clients:update products:list');
    } finally {
      await database.close();
    }
    const ports = [await freePort(), await freePort()];
    for (const port of ports) instances.push(startServer(port, env));
    await Promise.all(instances.map((instance) => instance.waitReady(60_000)));
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGKILL');
    await Promise.all(instances.map((instance) => instance.exited));
    await direct?.end().catch(() => undefined);
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    await bouncer?.stop();
    cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** No answer so far was a 500, and no instance logged an unhandled error. */
  const noInternalErrors = () => {
    expect(seen.filter((status) => status === 500)).toEqual([]);
    for (const instance of instances) expect(logLines(instance.stdout()).filter((line) => line.msg === 'unhandled error' || (line.level ?? 0) >= 50)).toEqual([]);
  };

  it('keeps no session state: the statement timeout is set per transaction, LISTEN and migrations go straight to PostgreSQL', async () => {
    // The role has no statement_timeout of its own: each instance said so at start-up (lines reach stdout in batches).
    const warned = (instance: (typeof instances)[number]) => logLines(instance.stdout()).filter((line) => String(line.msg).includes('without a time limit'));
    await until(() => instances.every((instance) => warned(instance).length > 0), 'the start-up warnings');
    for (const instance of instances) expect(warned(instance)).toHaveLength(1);
    const database = openPostgres({ connectionString: bouncer.url, directConnectionString: cluster.url, poolSize: 2, statementTimeoutMs: 1500 });
    try {
      const outside = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db);
      expect(outside.rows[0]?.statement_timeout).toBe('0');
      const inside = await database.db.transaction().execute((trx) => sql<{ statement_timeout: string }>`show statement_timeout`.execute(trx));
      expect(inside.rows[0]?.statement_timeout).toBe('1500ms');
      const runaway = database.db.transaction().execute((trx) => sql`select pg_sleep(3)`.execute(trx));
      await expect(runaway).rejects.toMatchObject({ code: '57014' });
      expect(await database.startupWarnings?.()).toHaveLength(1);
    } finally {
      await database.close();
    }
    // Each instance holds one LISTEN session on the server itself, not a pooled connection
    // (which the next transaction of anyone would take over).
    const listeners = await direct.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where query = 'listen booking_cache_changes' and state = 'idle'`);
    expect(listeners.rows[0]?.n).toBe(2);
    // Without the direct URL the pool is a session pool: its startup parameter is refused.
    const sessionStyle = openPostgres({ connectionString: bouncer.url, poolSize: 1, statementTimeoutMs: 1500 });
    try {
      await expect(sessionStyle.ping()).rejects.toThrow(/unsupported startup parameter: statement_timeout/);
    } finally {
      await sessionStyle.close();
    }
  }, 30_000);

  it('refuses a replayed assertion or DPoP proof on the other instance, and a client disabled on one on the other', async () => {
    const [a, b] = both();
    const writer = clients.get('writer') as Client;
    const once = await tokenForm(writer);
    const copies = await Promise.all([a, b, a, b].map((on) => send(`${on.origin}/v1/auth/token`, { method: 'POST', headers: { 'content-type': form }, body: once })));
    expect(copies.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);

    const key = await dpopKey();
    const issued = await send(`${a.origin}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': form, dpop: await dpopProof(key, { htm: 'POST', htu: `${publicUrl}/v1/auth/token` }) },
      body: await tokenForm(writer),
    });
    expect(issued.status).toBe(200);
    const bound = String(issued.body.access_token);
    const proof = await dpopProof(key, { htm: 'GET', htu: `${publicUrl}/v1/products`, accessToken: bound });
    const uses = [];
    for (const on of [a, b, a]) uses.push((await send(`${on.origin}/v1/products`, { headers: { authorization: `DPoP ${bound}`, dpop: proof } })).status);
    expect(uses).toEqual([200, 401, 401]);

    const victimToken = await token('victim', a);
    const adminToken = await token('admin', a);
    const victimOn = (on: ServerProcess) => send(`${on.origin}/v1/products`, { headers: { authorization: `Bearer ${victimToken}` } });
    expect((await victimOn(b)).status).toBe(200);
    const victimId = (clients.get('victim') as Client).clientId;
    const current = await send(`${a.origin}/v1/api-clients/${victimId}`, { headers: { authorization: `Bearer ${adminToken}` } });
    const disabled = await send(`${a.origin}/v1/api-clients/${victimId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'if-match': String(current.headers.get('etag')) },
      body: '{"disabled":true}',
    });
    expect(disabled.status).toBe(200);
    // Refused on B once A's change reaches it (NOTIFY over the direct connection, the 5 s
    // cache TTL as backstop); how soon is not a wall-clock assertion on a loaded machine.
    await eventually('instance B to refuse the disabled client', async () => ((await victimOn(b)).status === 401 ? true : undefined), 20_000);
    noInternalErrors();
  }, 30_000);

  it('answers an Idempotency-Key retried on the other instance with the first answer and creates the record once', async () => {
    const [a, b] = both();
    const bearer = await token('writer', a);
    const body = JSON.stringify(product('Idempotent through the pooler'));
    const post = (on: ServerProcess, key: string) =>
      send(`${on.origin}/v1/products`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'idempotency-key': key }, body });
    const first = await post(a, 'pooler-key-1');
    expect(first.status).toBe(201);
    const retried = await post(b, 'pooler-key-1');
    expect(retried.status).toBe(201);
    expect(retried.body._id).toBe(first.body._id);
    // Six copies of a new key at once on both instances: one runs, the others get its
    // answer or 409 while it runs; never a second record.
    const racing = await Promise.all([a, b, a, b, a, b].map((on) => post(on, 'pooler-key-2')));
    expect(racing.filter((answer) => answer.status !== 201 && answer.status !== 409)).toEqual([]);
    const ids = new Set(racing.filter((answer) => answer.status === 201).map((answer) => answer.body._id));
    expect(ids.size).toBe(1);
    const stored = await direct.query(`select _id from products where name = $1`, ['Idempotent through the pooler']);
    expect(stored.rows).toHaveLength(2);
    noInternalErrors();
  }, 30_000);

  it('sends each webhook delivery once with both instances dispatching: one attempt per delivery', async () => {
    const [a, b] = both();
    const bearer = await token('writer', a);
    const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
    // Events of earlier tests fanned out first, so only this test's products reach the hook.
    await eventually(
      'the outbox to drain',
      async () => ((await direct.query<{ n: number }>('select count(*)::int as n from outbox_events where dispatched_at is null')).rows[0]?.n === 0 ? true : undefined),
      10_000,
    );
    const hook = await send(`${a.origin}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiverUrl, events: ['products.created'] }) });
    expect(hook.status).toBe(201);
    const count = 40;
    const created = await Promise.all(
      Array.from({ length: count }, (_, i) => send(`${(i % 2 === 0 ? a : b).origin}/v1/products`, { method: 'POST', headers, body: JSON.stringify(product(`hooked ${i}`)) })),
    );
    expect(created.map((answer) => answer.status)).toEqual(Array.from({ length: count }, () => 201));
    const settled = async () => {
      const { rows } = await direct.query<{ status: string; attempts: number; _id: string }>(`select _id, status, attempts from webhook_deliveries where webhook_id = $1`, [hook.body._id]);
      return rows.length === count && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    };
    const deliveries = await eventually('every delivery to succeed', settled, 15_000).catch(async (error: unknown) => {
      // What the dispatchers saw, to tell a slow receiver from a failed claim.
      const { rows } = await direct.query(`select status, attempts, last_error, count(*)::int as n from webhook_deliveries group by 1, 2, 3`);
      const logged = instances.flatMap((instance) => logLines(instance.stdout()).filter((line) => (line.level ?? 0) >= 40));
      throw new Error(`${String(error)}\ndeliveries: ${JSON.stringify(rows)}\nlogged: ${JSON.stringify(logged).slice(0, 3000)}\nreceived: ${hits.length}`);
    });
    await until(() => hits.length >= count, 'the receiver to see every delivery', 5000);
    expect(deliveries.map((row) => row.attempts)).toEqual(Array.from({ length: count }, () => 1));
    const perDelivery = new Map<string, number>();
    for (const hit of hits) perDelivery.set(hit.id, (perDelivery.get(hit.id) ?? 0) + 1);
    expect([...perDelivery.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(perDelivery.keys())).toEqual(new Set(deliveries.map((row) => row._id)));
    expect(bouncer.log()).not.toMatch(/prepared statement .* does not exist/);
    noInternalErrors();
  }, 40_000);
});
