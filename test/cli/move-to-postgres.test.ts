import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { Secret, TOTP } from 'otpauth';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockFileName } from '../../src/db/data-dir-lock.js';
import { capabilities } from '../../src/actions/capabilities.js';
import { getResource, resources } from '../../src/registry/index.js';
import { asSystem } from '../../src/core/principal.js';
import { TenantDirectory } from '../../src/security/tenant-directory.js';
import { freshPostgresUrl } from '../support/databases.js';
import { clientKeyPair } from '../support/keys.js';
import type { TestKeyPair } from '../support/keys.js';
import { minimalBody } from '../support/resource-bodies.js';
import { onlyJson, runCli } from '../support/run-cli.js';
import { until } from '../support/server-process.js';
import { openStorageApp } from '../support/storage-app.js';
import type { StorageApp } from '../support/storage-app.js';

const slow = 180_000;

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver on loopback that keeps what it gets. */
async function receiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/hook`, received, server };
}

/** Every GET the comparison makes: status and body (JSON parsed, NDJSON split into entries). */
async function snapshot(storage: StorageApp, token: string, urls: readonly string[]): Promise<Record<string, { status: number; body: unknown; etag?: string }>> {
  const out: Record<string, { status: number; body: unknown; etag?: string }> = {};
  for (const url of urls) {
    const response = await storage.app.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const ndjson = String(response.headers['content-type'] ?? '').includes('ndjson');
    const body: unknown = ndjson
      ? response.body
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as unknown)
      : (response.json() as unknown);
    // The subject export stamps the time it was made; everything else must be identical.
    if (body !== null && typeof body === 'object' && 'generated_at' in body) Object.assign(body, { generated_at: 'now' });
    out[url] = { status: response.statusCode, body, ...(response.headers.etag ? { etag: String(response.headers.etag) } : {}) };
  }
  return out;
}

describe('move-to-postgres', () => {
  let dir: string;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  const env = (extra: Record<string, string> = {}) => ({ DATA_DIR: join(dir, 'data'), RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', ...extra });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-move-'));
    hooks = await receiver();
  });
  afterAll(async () => {
    await new Promise((resolve) => hooks.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'copies a populated SQLite world; the service on PostgreSQL answers identically, keys and secrets still work',
    async () => {
      // ---- A world on SQLite: every writable resource, soft-deleted rows, an erased user, webhooks with secrets.
      let storage = await openStorageApp(env());
      const directory = new TenantDirectory(storage.database);
      const tenantId = String(
        (await storage.app.resources.create({ principal: asSystem(), clientIp: null, requestId: null }, getResource('tenants'), { name: 'Moving partner', level: 'partner' })).record._id,
      );
      const scope = await directory.resolve(tenantId);
      if (!scope) throw new Error('tenant not found');
      const key: TestKeyPair = clientKeyPair();
      const everything = capabilities.map((c) => c.name).filter((name) => !name.startsWith('tenants:') || name === 'tenants:list' || name === 'tenants:read' || name === 'tenants:create');
      const clientRecord = (
        await storage.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('api-clients'), {
          name: 'mover',
          capabilities: everything,
          public_key: key.publicPem,
        })
      ).record;
      const clientId = String(clientRecord._id);
      const kid = (clientRecord.keys as { kid: string }[])[0]?.kid ?? '';
      const issued = await storage.requestToken(clientId, kid, key);
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const token = String(issued.body.access_token);
      const send = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
        const response = await storage.app.server.inject({
          method: method as 'POST',
          url,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
        return { json: (response.body ? response.json() : {}) as Record<string, unknown>, etag: String(response.headers.etag ?? '') };
      };

      const product = (await send('POST', '/v1/products', { ...minimalBody('products', { productId: '', userId: '' }), total_items: 20 }, { 'idempotency-key': 'move-test-1' })).json;
      const productId = String(product._id);
      const keep = (await send('POST', '/v1/users', { email: 'keep.move@example.com', first_name: 'Kept' })).json;
      const gone = (await send('POST', '/v1/users', { email: 'gone.move@example.com', first_name: 'Gone' })).json;
      const parents = { productId, userId: String(keep._id) };
      const ids: Record<string, string> = { products: productId, users: String(keep._id) };
      for (const resource of resources) {
        if (['products', 'users', 'audit-logs', 'webhook-deliveries', 'webhooks'].includes(resource.name)) continue;
        const created = await send('POST', `/v1/${resource.name}`, minimalBody(resource.name as Parameters<typeof minimalBody>[0], parents));
        ids[resource.name] = String(created.json._id);
      }
      // A booking of the erased user, then the erasure.
      await send('POST', '/v1/bookings', {
        product_id: productId,
        user_id: String(gone._id),
        start_time: '2027-01-01T10:00:00Z',
        end_time: '2027-01-02T10:00:00Z',
        notes: 'gone.move@example.com room',
      });
      await send('POST', `/v1/users/${String(gone._id)}/erase`);
      // Soft-deleted rows.
      const doomed = await send('POST', '/v1/products', { ...minimalBody('products', parents), name: 'Doomed' });
      await send('DELETE', `/v1/products/${String(doomed.json._id)}`, undefined, { 'if-match': doomed.etag });
      // Webhooks: an outgoing one to the receiver (deliveries made now), an incoming one.
      // Events so far are dispatched first: a new webhook gets only later ones.
      await storage.app.dispatcher.runOnce();
      const outgoing = (await send('POST', '/v1/webhooks', { url: hooks.url, events: ['products.created'] })).json;
      const incoming = (await send('POST', '/v1/webhooks', { direction: 'incoming', scheme: 'standard-webhooks' })).json;
      ids.webhooks = String(outgoing._id);
      await send('POST', '/v1/products', { ...minimalBody('products', parents), name: 'Announced' });
      await storage.app.dispatcher.runOnce();
      expect(hooks.received).toHaveLength(1);
      // Sign-in state: an end user signs in by e-mail code (written to DATA_DIR/outbox without
      // SMTP) and enrols TOTP (secret encrypted under the data key).
      const childScope = await directory.resolve(ids.tenants ?? '');
      if (!childScope) throw new Error('child tenant not found');
      const totpEmail = 'totp.move@example.com';
      await storage.app.resources.create({ principal: { ...asSystem(), scope: childScope }, clientIp: null, requestId: null }, getResource('users'), { email: totpEmail });
      const otpStart = () =>
        storage.app.server.inject({
          method: 'POST',
          url: '/v1/auth/otp/start',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ tenant_id: ids.tenants, channel: 'email', destination: totpEmail }),
        });
      const challenge = await otpStart();
      expect(challenge.statusCode, challenge.body).toBe(202);
      const outbox = join(dir, 'data', 'outbox');
      await until(() => existsSync(outbox) && readdirSync(outbox).length === 1, 'the sign-in e-mail');
      const mail = readFileSync(join(outbox, readdirSync(outbox)[0] ?? ''), 'utf8');
      const code = /sign-in code is:?\s*(\d{6})/.exec(mail)?.[1] ?? '';
      const verified = await storage.app.server.inject({
        method: 'POST',
        url: '/v1/auth/otp/verify',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ challenge_id: challenge.json().challenge_id, code }),
      });
      expect(verified.statusCode, verified.body).toBe(200);
      const userToken = String(verified.json().access_token);
      const enrolled = await storage.app.server.inject({ method: 'POST', url: '/v1/auth/totp/enroll', headers: { authorization: `Bearer ${userToken}` } });
      expect(enrolled.statusCode, enrolled.body).toBe(200);
      const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
      const activated = await storage.app.server.inject({
        method: 'POST',
        url: '/v1/auth/totp/activate',
        headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ code: totp.generate() }),
      });
      expect(activated.statusCode, activated.body).toBe(204);
      const order = (await send('POST', '/v1/orders', { product_id: productId, start_time: '2027-03-01T10:00:00Z', end_time: '2027-03-02T10:00:00Z' })).json;
      await storage.close();

      const urls = [
        ...resources.filter((r) => r.operations.includes('list')).map((r) => `/v1/${r.name}?per_page=100`),
        ...Object.entries(ids).map(([resource, id]) => `/v1/${resource}/${id}`),
        `/v1/users/${String(gone._id)}`,
        `/v1/users/${String(keep._id)}/export`,
        '/v1/audit-logs/export',
        `/v1/webhooks/${String(outgoing._id)}/deliveries`,
      ];
      // Reopened: the security events queued by the first app are flushed and part of the picture.
      storage = await openStorageApp(env());
      const before = await snapshot(storage, token, urls);
      const resendLocks = async () =>
        (await storage.database.db.selectFrom('otp_resend_locks').select(['destination_key', 'sent_at']).orderBy('destination_key').execute()).map((row) => [row.destination_key, Number(row.sent_at)]);
      const resendLocksBefore = await resendLocks();
      expect(resendLocksBefore).toHaveLength(1);
      const counts: Record<string, number> = {};
      for (const table of await storage.database.db.introspection.getTables()) {
        const row = await storage.database.db
          .selectFrom(table.name)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        counts[table.name] = Number(row.n);
      }
      await storage.close();
      for (const [url, answer] of Object.entries(before)) expect(answer.status, url).toBe(200);

      // ---- Refused while the data directory is in use, and for a bad URL.
      const url = await freshPostgresUrl();
      writeFileSync(join(dir, 'data', lockFileName), `${JSON.stringify({ pid: process.pid, host: hostname(), purpose: 'server', since: new Date().toISOString() })}\n`);
      const inUse = await runCli(['move-to-postgres', '--to', url], env());
      expect(inUse.code).toBe(1);
      expect(onlyJson(inUse)).toMatchObject({ error: 'data_dir_in_use' });
      unlinkSync(join(dir, 'data', lockFileName));
      const badUrl = await runCli(['move-to-postgres', '--to', 'mysql://x'], env());
      expect([badUrl.code, onlyJson(badUrl).error]).toEqual([2, 'usage']);

      // ---- The move.
      const run = await runCli(['move-to-postgres', '--to', url], env());
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const moved = onlyJson(run);
      expect(moved).toMatchObject({ moved: true, schema_version: expect.any(String), skipped: ['append_only_gate'] });
      const tables = moved.tables as Record<string, { rows: number; checksum: string }>;
      for (const [table, rows] of Object.entries(counts)) {
        if (table.startsWith('kysely_') || table === 'append_only_gate') continue;
        // Run-time state, not data: reported as left behind, never copied.
        if (table === 'job_leases') {
          expect(tables[table], table).toBeUndefined();
          expect(moved.not_copied, table).toEqual({ job_leases: rows });
          continue;
        }
        expect(tables[table]?.rows, table).toBe(rows);
      }
      for (const table of [
        'user_totp',
        'otp_challenges',
        'otp_resend_locks',
        'products',
        'users',
        'audit_logs',
        'subject_keys',
        'api_clients',
        'api_client_keys',
        'webhooks',
        'webhook_secrets',
        'webhook_deliveries',
        'outbox_events',
        'idempotency_keys',
        'tenants',
        'legal_holds',
      ]) {
        expect(tables[table]?.rows, table).toBeGreaterThan(0);
      }
      expect(moved.to).toBe(url);
      // The copy was vacuumed and analysed: statistics and all-visible pages from the first request.
      expect(moved.statistics).toMatchObject({ vacuumed_and_analyzed: Object.keys(tables).length, duration_ms: expect.any(Number) });

      // A second run refuses: the target is no longer empty.
      const again = await runCli(['move-to-postgres', '--to', url], env());
      expect(again.code).toBe(1);
      expect(onlyJson(again)).toMatchObject({ error: 'target_not_empty' });

      // ---- The service on PostgreSQL, same DATA_DIR (signing keys, data key).
      storage = await openStorageApp(env({ DATABASE_URL: url }));
      try {
        expect(storage.database.dialect.name).toBe('postgres');
        // The move vacuumed and analysed what it copied: the planner has statistics from the
        // first request. (Pages are not asserted all-visible: the test cluster runs with
        // synchronous_commit=off, and VACUUM leaves pages whose commit is not yet flushed.)
        const { rows: catalog } = await storage.database.db.executeQuery<{ reltuples: number; vacuumed: boolean; analysed: boolean }>(
          CompiledQuery.raw(
            `select c.reltuples, s.last_vacuum is not null as vacuumed, s.last_analyze is not null as analysed from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.relname = 'products'`,
          ),
        );
        expect(catalog[0]).toMatchObject({ vacuumed: true, analysed: true });
        expect(catalog[0]?.reltuples, 'planner statistics of products').toBeGreaterThan(0);
        const after = await snapshot(storage, token, urls);
        for (const u of urls) expect(after[u], u).toEqual(before[u]);
        expect(JSON.stringify(after)).not.toContain('gone.move@example.com');

        // The client's old key obtains a token.
        expect((await storage.requestToken(clientId, kid, key)).status).toBe(200);

        // The outgoing webhook's secret (encrypted under the data key) still signs: the receiver verifies.
        const created = await storage.app.server.inject({
          method: 'POST',
          url: '/v1/products',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ ...minimalBody('products', parents), name: 'After the move' }),
        });
        expect(created.statusCode).toBe(201);
        await storage.app.dispatcher.runOnce();
        expect(hooks.received).toHaveLength(2);
        const delivery = hooks.received[1] as Received;
        const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
        expect(new Webhook(String(outgoing.secret)).verify(delivery.body, headers)).toMatchObject({ type: 'products.created' });

        // The TOTP secret opens with the data key (a code of a later step steps the user up),
        // and the resend cooldown of the e-mail code travelled with the sign-in state (its
        // slot, compared as stored: asking again would depend on how long the move took).
        const steppedUp = await storage.app.server.inject({
          method: 'POST',
          url: '/v1/auth/totp/step-up',
          headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ code: totp.generate({ timestamp: Date.now() + 30_000 }) }),
        });
        expect(steppedUp.statusCode, steppedUp.body).toBe(200);
        expect(await resendLocks()).toEqual(resendLocksBefore);

        // The incoming webhook's secret verifies a sender's signature; a wrong one is refused.
        const event = JSON.stringify({ type: 'orders.paid', timestamp: new Date().toISOString(), data: { order_id: String(order._id) } });
        const at = new Date();
        const signed = {
          'webhook-id': 'msg_move',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(String(incoming.secret)).sign('msg_move', at, event),
        };
        const receive = (signature: Record<string, string>) =>
          storage.app.server.inject({ method: 'POST', url: `/v1/webhooks/${String(incoming._id)}/receive`, headers: { 'content-type': 'application/json', ...signature }, payload: event });
        expect((await receive({ ...signed, 'webhook-signature': 'v1,AAAA' })).statusCode).toBe(401);
        const accepted = await receive(signed);
        expect(accepted.statusCode, accepted.body).toBe(200);
        expect(accepted.json()).toMatchObject({ outcome: 'applied' });
      } finally {
        await storage.close();
      }
    },
    slow,
  );

  it(
    'a row PostgreSQL cannot take aborts the whole move: the target stays empty and a re-run after the fix succeeds',
    async () => {
      const data = join(dir, 'broken');
      const created = await runCli(['tenant', 'create', '--name', 'Broken'], { DATA_DIR: data });
      expect(created.code, created.stdout).toBe(0);
      const file = new BetterSqlite3(join(data, 'booking.sqlite'));
      file.prepare('update tenants set created_at = ? where _id = ?').run('not a time', String(onlyJson(created)._id));
      const url = await freshPostgresUrl();
      const failed = await runCli(['move-to-postgres', '--to', url], { DATA_DIR: data });
      expect(failed.code).toBe(1);
      expect(onlyJson(failed)).toMatchObject({ error: 'copy_failed', detail: expect.stringContaining('table tenants') });
      expect(failed.stdout + failed.stderr).not.toMatch(/\n\s+at /);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>('select (select count(*) from tenants) + (select count(*) from audit_logs) + (select count(*) from outbox_events) as n');
        expect(Number(rows[0]?.n)).toBe(0);
      } finally {
        await client.end();
      }
      file.prepare('update tenants set created_at = ? where created_at = ?').run(new Date().toISOString(), 'not a time');
      file.close();
      const fixed = await runCli(['move-to-postgres', '--to', url], { DATA_DIR: data });
      expect(fixed.code, fixed.stdout).toBe(0);
      expect(onlyJson(fixed)).toMatchObject({ moved: true, tables: { tenants: { rows: 1 } } });
    },
    slow,
  );

  it(
    'leaves the background job leases behind: no lease row reaches PostgreSQL, and the report says so',
    async () => {
      const data = join(dir, 'leases');
      const created = await runCli(['tenant', 'create', '--name', 'Leased'], { DATA_DIR: data });
      expect(created.code, created.stdout).toBe(0);
      // The lease a running service holds: copied, it would make the new one skip its next run.
      const file = new BetterSqlite3(join(data, 'booking.sqlite'));
      try {
        file.prepare('insert into job_leases (job, holder, expires_at) values (?, ?, ?)').run('retention', 'old-process', Date.now() + 3_600_000);
      } finally {
        file.close();
      }
      const url = await freshPostgresUrl();
      const moved = await runCli(['move-to-postgres', '--to', url], { DATA_DIR: data });
      expect(moved.code, moved.stdout).toBe(0);
      const report = onlyJson(moved) as { tables: Record<string, { rows: number }>; total_rows: number; not_copied: Record<string, number> };
      expect(report.not_copied).toEqual({ job_leases: 1 });
      expect(Object.keys(report.tables)).not.toContain('job_leases');
      expect(report.tables.tenants?.rows).toBe(1);
      expect(report.total_rows).toBe(Object.values(report.tables).reduce((sum, t) => sum + t.rows, 0));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>('select count(*) as n from job_leases');
        expect(Number(rows[0]?.n)).toBe(0);
      } finally {
        await client.end();
      }
    },
    slow,
  );
});
