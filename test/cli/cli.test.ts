import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../cli/operator-services.js';
import { getResource } from '../../src/registry/index.js';
import { asSystem } from '../../src/core/principal.js';
import { freshPostgresUrl } from '../support/databases.js';
import { clientKeyPair } from '../support/keys.js';
import type { TestKeyPair } from '../support/keys.js';
import { onlyJson, runCli } from '../support/run-cli.js';
import { openStorageApp } from '../support/storage-app.js';

const operator = { principal: asSystem(), clientIp: null, requestId: null };

// Each CLI run starts Node and tsx (about a second): the runs below are few and shared.
const slow = 60_000;

describe('operator CLI on sqlite', () => {
  let dir: string;
  let env: Record<string, string>;
  const first = clientKeyPair();
  const second = clientKeyPair();
  const pem = (name: string, key: TestKeyPair) => {
    const file = join(dir, `${name}.pem`);
    writeFileSync(file, key.publicPem);
    return file;
  };

  /**
   * What a test starts from, made in-process with the operator services the CLI itself runs
   * (no CLI run, about a second each): a tenant and, with `client`, a client holding the
   * first key. Every test makes its own, so each stands alone and in any order.
   */
  async function given(options: { client?: boolean } = {}): Promise<{ tenantId: string; clientId: string; kid: string }> {
    const storage = await openStorageApp(env);
    try {
      const operator = await buildOperatorServices(storage.config, storage.database);
      const tenant = (await operator.createTenant({ name: 'Given', level: 'partner', parent: undefined, currency: undefined })) as Record<string, unknown>;
      const tenantId = String(tenant._id);
      if (!options.client) return { tenantId, clientId: '', kid: '' };
      const client = (await operator.createClient({
        name: 'Given client',
        tenant: tenantId,
        capabilities: 'products:list products:create',
        publicKeyFile: pem('first', first),
        kid: undefined,
        ipAllow: undefined,
      })) as Record<string, unknown>;
      return { tenantId, clientId: String(client.client_id), kid: String(client.kid) };
    } finally {
      await storage.close();
    }
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-cli-'));
    env = { DATA_DIR: join(dir, 'data') };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'tenant create prints the created node as one JSON object',
    async () => {
      const run = await runCli(['tenant', 'create', '--name', 'Acme', '--level', 'partner', '--currency', 'CHF'], env);
      expect(run.code, run.stderr).toBe(0);
      const node = onlyJson(run);
      expect(node).toMatchObject({ name: 'Acme', level: 'partner', parent_id: null, currency: 'CHF' });
      expect(node._id).toEqual(expect.any(String));
      // The built-in root named as the parent: the same place.
      const below = await runCli(['tenant', 'create', '--name', 'Beta', '--level', 'partner', '--parent', 'system'], env);
      expect(below.code, below.stderr).toBe(0);
      expect(onlyJson(below)).toMatchObject({ name: 'Beta', level: 'partner', parent_id: null });
    },
    slow,
  );

  it(
    'client create prints client_id and kid of a client that can get a token',
    async () => {
      const { tenantId } = await given();
      const run = await runCli(['client', 'create', '--name', 'Booking engine', '--tenant', tenantId, '--capabilities', 'products:list products:create', '--public-key', pem('first', first)], env);
      expect(run.code, run.stderr).toBe(0);
      const client = onlyJson(run);
      expect(client).toMatchObject({ client_id: expect.any(String), kid: expect.any(String), tenant_id: tenantId, level: 'partner', capabilities: ['products:list', 'products:create'] });
      expect(JSON.stringify(client)).not.toContain('PUBLIC KEY');
      const clientId = String(client.client_id);
      const firstKid = String(client.kid);

      const storage = await openStorageApp(env);
      try {
        const token = await storage.requestToken(clientId, firstKid, first);
        expect(token.status, JSON.stringify(token.body)).toBe(200);
        expect(String(token.body.scope).split(' ').sort()).toEqual(['products:create', 'products:list']);
        const list = await storage.app.server.inject({ method: 'GET', url: '/v1/products/', headers: { authorization: `Bearer ${String(token.body.access_token)}` } });
        expect(list.statusCode).toBe(200);
      } finally {
        await storage.close();
      }
    },
    slow,
  );

  it(
    'client add-key rotates: the new kid is printed and both keys obtain tokens',
    async () => {
      const { clientId, kid: firstKid } = await given({ client: true });
      const run = await runCli(['client', 'add-key', '--client', clientId, '--public-key', pem('second', second), '--kid', 'k2', '--overlap-days', '7'], env);
      expect(run.code, run.stderr).toBe(0);
      const result = onlyJson(run);
      expect(result).toMatchObject({ client_id: clientId, kid: 'k2', retired: [{ kid: firstKid, active_until: expect.any(String) }] });

      const storage = await openStorageApp(env);
      try {
        expect((await storage.requestToken(clientId, 'k2', second)).status).toBe(200);
        expect((await storage.requestToken(clientId, firstKid, first)).status).toBe(200);
        // The kid selects the key: the first key cannot sign for kid k2.
        expect((await storage.requestToken(clientId, 'k2', first)).status).toBe(401);
      } finally {
        await storage.close();
      }
    },
    slow,
  );

  it(
    'keys rotate adds a signing key, publishes it and audits the rotation',
    async () => {
      const run = await runCli(['keys', 'rotate'], env);
      expect(run.code, run.stderr).toBe(0);
      const result = onlyJson(run) as { kid: string; jwks: string[] };
      expect(result.jwks).toContain(result.kid);
      expect(result.jwks.length).toBeGreaterThanOrEqual(2);
      const storage = await openStorageApp(env);
      try {
        const jwks = (await storage.app.server.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: { kid: string }[] };
        expect(jwks.keys.map((k) => k.kid)).toContain(result.kid);
        const entry = await storage.database.db.selectFrom('audit_logs').selectAll().where('action', '=', 'signing_key_rotated').executeTakeFirst();
        expect(entry).toMatchObject({ category: 'security', actor_type: 'system', record_id: result.kid });
      } finally {
        await storage.close();
      }
    },
    slow,
  );

  it(
    'audit purge runs the retention purge with the configured retention',
    async () => {
      const run = await runCli(['audit', 'purge'], { ...env, AUDIT_RETENTION_DAYS: '30', AUDIT_RETENTION_SECURITY_DAYS: '7' });
      expect(run.code, run.stderr).toBe(0);
      const result = onlyJson(run) as { purged: Record<string, number>; cutoffs: Record<string, string> };
      expect(result.purged).toEqual({ data: 0, security: 0 });
      const days = (iso: string | undefined) => Math.round((Date.now() - Date.parse(String(iso))) / 86_400_000);
      expect(days(result.cutoffs.data)).toBe(30);
      expect(days(result.cutoffs.security)).toBe(7);
    },
    slow,
  );

  it(
    'retention run applies the retention policies; --dry-run only counts; --all runs the whole retention job',
    async () => {
      const tenant = String((onlyJson(await runCli(['tenant', 'create', '--name', 'Retention'], env)) as { _id: string })._id);
      const policy = await runCli(['action', 'run', '--action', 'retention-policies.create', '--tenant', tenant, '--body', JSON.stringify({ category: 'security', retention_days: 36500 })], env);
      expect(policy.code, `${policy.stdout} ${policy.stderr}`).toBe(0);
      const id = String((onlyJson(policy) as { body: { _id: string } }).body._id);
      for (const args of [
        ['retention', 'run', '--dry-run'],
        ['retention', 'run'],
      ]) {
        const run = await runCli(args, env);
        expect(run.code, `${run.stdout} ${run.stderr}`).toBe(0);
        expect(onlyJson(run)).toEqual({ dry_run: args.length === 3, policies: [{ policy: id, category: 'security', action: 'delete', processed: 0, held: 0 }] });
      }
      // --all: one whole run of the background job, for deployments that schedule it themselves.
      const storage = await openStorageApp(env);
      try {
        const longAgo = Date.now() - 3 * 24 * 60 * 60 * 1000;
        await storage.database.db.insertInto('mfa_challenges').values({ token_hash: 'cli_expired', user_id: 'u', attempts: 0, expires_at: longAgo, used_at: null }).execute();
      } finally {
        await storage.close();
      }
      const [all, both] = await Promise.all([runCli(['retention', 'run', '--all'], env), runCli(['retention', 'run', '--all', '--dry-run'], env)]);
      expect(all.code, `${all.stdout} ${all.stderr}`).toBe(0);
      expect(onlyJson(all)).toMatchObject({
        all: true,
        rows: { mfa_challenges: 1, otp_challenges: 0, audit_data: 0, webhook_deliveries: 0, policy_security_delete: 0 },
        audit_cutoffs: { data: expect.any(String), security: expect.any(String) },
        policies: [{ policy: id, processed: 0 }],
      });
      expect(both.code).toBe(2);
      expect(onlyJson(both)).toMatchObject({ error: 'usage', errors: [{ field: '--dry-run' }] });
    },
    slow,
  );

  it(
    'bad input prints a JSON error and exits non-zero',
    async () => {
      const { clientId } = await given({ client: true });
      const [unknownTenant, badKey, unknownFlag] = await Promise.all([
        runCli(['client', 'create', '--name', 'x', '--tenant', '0190a8b2-0000-7000-8000-000000000000', '--capabilities', 'products:list', '--public-key', pem('third', clientKeyPair())], env),
        runCli(['client', 'add-key', '--client', clientId, '--public-key', join(dir, 'missing.pem')], env),
        runCli(['tenant', 'create', '--name', 'x', '--colour', 'blue'], env),
      ]);
      expect(unknownTenant.code).toBe(1);
      expect(onlyJson(unknownTenant)).toMatchObject({ error: 'validation_failed', errors: [{ field: '--tenant' }] });
      expect(badKey.code).toBe(1);
      expect(onlyJson(badKey)).toMatchObject({ error: 'validation_failed', errors: [{ field: '--public-key' }] });
      expect(unknownFlag.code).toBe(2);
      expect(onlyJson(unknownFlag)).toMatchObject({ error: 'usage' });
      expect(unknownFlag.stderr).toContain('Usage:');
    },
    slow,
  );

  it(
    'an unknown command prints the usage and exits 2',
    async () => {
      const run = await runCli(['tenant', 'explode'], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Usage:');
      expect(run.stderr).toContain('client add-key');
      expect(onlyJson(run)).toMatchObject({ error: 'usage' });
    },
    slow,
  );
});

describe('operator CLI on postgres', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-cli-'));
    env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: await freshPostgresUrl() };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'creates a tenant and a client in it whose key obtains a token',
    async () => {
      const tenant = await runCli(['tenant', 'create', '--name', 'Shop'], env);
      expect(tenant.code, tenant.stdout + tenant.stderr).toBe(0);
      const tenantId = String(onlyJson(tenant)._id);
      const key = clientKeyPair();
      const file = join(dir, 'client.pem');
      writeFileSync(file, key.publicPem);
      const run = await runCli(
        ['client', 'create', '--name', 'Shop app', '--tenant', tenantId, '--capabilities', 'products:list', '--public-key', file, '--kid', 'shop-1', '--ip-allow', '127.0.0.0/8, ::1'],
        env,
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const client = onlyJson(run);
      expect(client).toMatchObject({ client_id: expect.any(String), kid: 'shop-1', tenant_id: tenantId, level: 'tenant' });

      const storage = await openStorageApp(env);
      try {
        const token = await storage.requestToken(String(client.client_id), 'shop-1', key);
        expect(token.status, JSON.stringify(token.body)).toBe(200);
        expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'products:list' });
        const stored = await storage.app.resources.read(operator, getResource('api-clients'), String(client.client_id));
        expect(stored.record).toMatchObject({ ip_allowlist: ['127.0.0.0/8', '::1'], keys: [{ kid: 'shop-1' }] });
      } finally {
        await storage.close();
      }
    },
    slow,
  );
});
