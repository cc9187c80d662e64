import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness, TestClient } from '../../support/harness.js';
import { productBody } from '../../support/resource-bodies.js';

const capabilities = ['products:create', 'products:list', 'api-clients:create', 'api-clients:list', 'audit-logs:list'];

describe.each(dialects)('tenant_id "system" in the tokens of system-level clients on %s', (dialect) => {
  let h: Harness;
  let systemClient: TestClient;
  let system: string;
  let acme: string;
  let globex: string;

  const names = async (token: string, headers: Record<string, string> = {}) => {
    const res = await h.request({ method: 'GET', url: '/v1/products/?per_page=100', token, headers });
    expect(res.statusCode).toBe(200);
    return (res.json().items as { name: string }[]).map((p) => p.name).sort();
  };

  beforeAll(async () => {
    h = await createHarness(dialect);
    acme = await h.tenant('Acme');
    globex = await h.tenant('Globex');
    systemClient = await h.client(null, capabilities);
    system = await h.token(systemClient);
    for (const [tenant, name] of [
      [acme, 'acme-loft'],
      [globex, 'globex-loft'],
    ] as const) {
      const res = await h.request({ method: 'POST', url: '/v1/products/', token: system, body: { ...productBody, name }, headers: { 'x-tenant-id': tenant } });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(() => h.close());

  it('issues tokens with tenant_id "system" and level "system"', () => {
    expect(decodeJwt(system)).toMatchObject({ tenant_id: 'system', level: 'system', client_id: systemClient.clientId });
  });

  it('keeps system scope: every tenant without X-Tenant-Id, one subtree with it, X-Tenant-Id: system is the root', async () => {
    expect(await names(system)).toEqual(['acme-loft', 'globex-loft']);
    expect(await names(system, { 'x-tenant-id': acme })).toEqual(['acme-loft']);
    expect(await names(system, { 'x-tenant-id': 'system' })).toEqual(['acme-loft', 'globex-loft']);
  });

  it('still refuses X-Tenant-Id (also "system") to a tenant-level caller', async () => {
    const tenantToken = await h.bearer(acme, ['products:list']);
    expect(decodeJwt(tenantToken).tenant_id).toBe(acme);
    for (const target of ['system', globex]) {
      const res = await h.request({ method: 'GET', url: '/v1/products/', token: tenantToken, headers: { 'x-tenant-id': target } });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('tenant_forbidden');
    }
  });

  it('audits the system client under the root node (tenant_id null) and its records in their tenant', async () => {
    await h.app.securityEvents.flush();
    const issued = await h.request({ method: 'GET', url: `/v1/audit-logs/?category=security&action=token_issued&record_id=${systemClient.clientId}`, token: system });
    expect(issued.json().items[0]).toMatchObject({ actor_id: systemClient.clientId, tenant_id: null });
    const created = await h.request({ method: 'GET', url: '/v1/audit-logs/?category=data&resource=products&action=create&per_page=100', token: system });
    const tenants = (created.json().items as { actor_id: string; tenant_id: string | null }[])
      .filter((e) => e.actor_id === systemClient.clientId)
      .map((e) => e.tenant_id)
      .sort();
    expect(tenants).toEqual([acme, globex].sort());
  });

  it('creates API clients at the root that get tenant_id "system" tokens too', async () => {
    const res = await h.request({ method: 'POST', url: '/v1/api-clients/', token: system, body: { name: 'root robot', capabilities: ['products:list'], public_key: systemClient.key.publicPem } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ tenant_id: null, level: 'system' });
    const token = await h.token({ clientId: res.json()._id, kid: res.json().keys[0].kid, key: systemClient.key, tenantId: null });
    expect(decodeJwt(token)).toMatchObject({ tenant_id: 'system', level: 'system' });
  });
});
