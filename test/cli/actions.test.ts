import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../src/actions/index.js';
import { onlyJson, runCli } from '../support/run-cli.js';

const slow = 60_000;

describe('CLI commands derived from the declared actions', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-cli-actions-'));
    env = { DATA_DIR: join(dir, 'data') };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    '"actions" lists every declared action with its method, path and capability',
    async () => {
      const run = await runCli(['actions'], env);
      expect(run.code, run.stderr).toBe(0);
      const listed = onlyJson(run) as { items: { action: string; method: string; path: string; capability: string }[]; total: number };
      expect(listed.total).toBe(actions.length);
      expect(listed.items.map((item) => item.action)).toEqual(actions.map(actionKey));
      expect(listed.items).toContainEqual({ action: 'api-clients.rotate-key', method: 'POST', path: '/v1/api-clients/:id/keys', capability: 'api-clients:rotate-key' });
    },
    slow,
  );

  it(
    '"action run" creates, updates and reads through the same executor, audited as the operator',
    async () => {
      const tenant = onlyJson(await runCli(['action', 'run', '--action', 'tenants.create', '--body', '{"name":"Acme","level":"tenant"}'], env)) as { status: number; body: { _id: string } };
      expect(tenant.status).toBe(201);
      const tenantId = tenant.body._id;
      const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 2 };
      const created = onlyJson(await runCli(['action', 'run', '--action', 'products.create', '--tenant', tenantId, '--body', JSON.stringify(product)], env)) as {
        status: number;
        etag: string;
        body: { _id: string; tenant_id: string };
      };
      expect(created).toMatchObject({ status: 201, etag: expect.stringMatching(/^"/), body: { tenant_id: tenantId, city: 'Berlin' } });
      const updated = onlyJson(
        await runCli(['action', 'run', '--action', 'products.update', '--tenant', tenantId, '--id', created.body._id, '--if-match', created.etag, '--body', '{"city":"Hamburg"}'], env),
      );
      expect(updated).toMatchObject({ status: 200, body: { city: 'Hamburg' } });
      const trail = onlyJson(await runCli(['action', 'run', '--action', 'audit-logs.list', '--query', `record_id=${created.body._id}&sort=created_at`], env)) as {
        body: { items: { action: string; actor_type: string }[] };
      };
      expect(trail.body.items.map((e) => [e.action, e.actor_type])).toEqual([
        ['create', 'system'],
        ['update', 'system'],
      ]);
    },
    slow,
  );

  it(
    'client create --new-tenant --generate-key checks everything before writing: a refused client leaves no tenant and no key files',
    async () => {
      const refused = await runCli(['client', 'create', '--name', 'x', '--new-tenant', 'Ghost', '--generate-key', join(dir, 'ghost'), '--capabilities', 'products:launch'], env);
      expect(refused.code).toBe(1);
      expect(onlyJson(refused)).toMatchObject({ error: 'validation_failed' });
      expect(existsSync(join(dir, 'ghost.key'))).toBe(false);
      const tenants = onlyJson(await runCli(['action', 'run', '--action', 'tenants.list', '--query', 'name=Ghost'], env)) as { body: { total: number } };
      expect(tenants.body.total).toBe(0);
      const made = onlyJson(await runCli(['client', 'create', '--name', 'y', '--new-tenant', 'Real', '--generate-key', join(dir, 'real'), '--capabilities', 'products:list'], env));
      expect(made).toMatchObject({ client_id: expect.any(String), private_key: join(dir, 'real.key'), tenant: { name: 'Real' } });
      expect(made.tenant_id).toBe((made.tenant as { _id: string })._id);
      expect(statSync(join(dir, 'real.key')).mode & 0o777).toBe(0o600);
    },
    slow,
  );

  it(
    'runs the actions beyond CRUD too: the container builds every service for the CLI as for HTTP',
    async () => {
      const tenant = onlyJson(await runCli(['action', 'run', '--action', 'tenants.create', '--body', '{"name":"Hooks","level":"tenant"}'], env)) as { body: { _id: string } };
      const webhook = onlyJson(
        await runCli(['action', 'run', '--action', 'webhooks.create', '--tenant', tenant.body._id, '--body', '{"url":"https://hooks.example.com/in","events":["products.created"]}'], env),
      ) as { status: number; body: { _id: string } };
      expect(webhook.status).toBe(201);
      const deliveries = onlyJson(await runCli(['action', 'run', '--action', 'webhooks.deliveries', '--tenant', tenant.body._id, '--id', webhook.body._id], env));
      expect(deliveries).toMatchObject({ status: 200, body: { items: [] } });
      const rotated = onlyJson(await runCli(['action', 'run', '--action', 'webhooks.rotate-secret', '--tenant', tenant.body._id, '--id', webhook.body._id], env));
      expect(rotated).toMatchObject({ status: 200, body: { secret: expect.any(String) } });
    },
    slow,
  );

  it(
    'refuses an unknown action as a usage error naming --action',
    async () => {
      const unknown = await runCli(['action', 'run', '--action', 'products.launch'], env);
      expect(unknown.code).toBe(2);
      expect(onlyJson(unknown)).toMatchObject({ error: 'usage', errors: [{ field: '--action', message: expect.stringContaining('unknown action products.launch') }] });
    },
    slow,
  );
});
