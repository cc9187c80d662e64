import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../../src/actions/capabilities.js';
import { resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { minimalBody, productBody } from '../../support/resource-bodies.js';

const everything = capabilities.map((c) => c.name);
const writable = resources.filter((r) => r.name !== 'audit-logs').map((r) => r.name);

/**
 * What a tenant writes is what it reads back: the create and update responses, a later
 * read and the audit entry show one and the same record, on both databases.
 */
describe.each(dialects)('records read back as written on %s', (dialect) => {
  let h: Harness;
  let token: string;
  const created = new Map<ResourceName, Record<string, unknown>>();
  const refs = { productId: '', userId: '' };

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Owner', 'parent_tenant'), everything);
    refs.productId = (await h.request({ method: 'POST', url: '/v1/products/', token, body: productBody })).json()._id as string;
    refs.userId = (await h.request({ method: 'POST', url: '/v1/users/', token, body: { email: 'owner@example.com' } })).json()._id as string;
    for (const name of writable) created.set(name, await create(name));
  });

  async function create(name: ResourceName): Promise<Record<string, unknown>> {
    const res = await h.request({ method: 'POST', url: `/v1/${name}/`, token, body: minimalBody(name, refs) });
    if (res.statusCode !== 201) throw new Error(`creating ${name} failed: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown>;
  }
  afterAll(() => h.close());

  const body = (name: ResourceName): Record<string, unknown> => created.get(name) ?? {};

  it.each(writable)('%s: a read returns exactly what the create returned', async (name) => {
    const read = await h.request({ method: 'GET', url: `/v1/${name}/${String(body(name)._id)}`, token });
    // What a create shows once (a webhook's secret) is the only difference.
    const { secret: _shownOnce, ...rest } = body(name);
    expect(read.json()).toEqual(name === 'webhooks' ? rest : body(name));
  });

  it.each(writable)('%s: the audit entry of the create holds the values as the API shows them', async (name) => {
    const id = String(body(name)._id);
    const audit = await h.request({ method: 'GET', url: `/v1/audit-logs/?record_id=${id}&action=create`, token });
    const [entry] = audit.json().items as { new_values: Record<string, unknown> }[];
    const read = (await h.request({ method: 'GET', url: `/v1/${name}/${id}`, token })).json() as Record<string, unknown>;
    expect(entry?.new_values).toBeDefined();
    for (const [field, value] of Object.entries(entry?.new_values ?? {})) expect(value, field).toEqual(read[field]);
  });

  it.each([
    ['webhooks', { events: ['bookings.created', 'bookings.deleted'] }],
    ['api-clients', { capabilities: ['products:read', 'products:list'], ip_allowlist: ['10.0.0.0/8'] }],
  ] as const)('%s: an update response shows the record as a later read does', async (name, change) => {
    // A record of its own: the read-back tests above must see the created values, in any order.
    const id = String((await create(name))._id);
    const current = await h.request({ method: 'GET', url: `/v1/${name}/${id}`, token });
    const patched = await h.request({ method: 'PATCH', url: `/v1/${name}/${id}`, token, body: change, headers: { 'if-match': String(current.headers.etag) } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject(change);
    expect((await h.request({ method: 'GET', url: `/v1/${name}/${id}`, token })).json()).toEqual(patched.json());
  });
});
