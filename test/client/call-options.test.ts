import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ValidationError } from '../../packages/client/src/index.js';
import type { Client } from '../../packages/client/src/index.js';
import { crud, listeningService, recordingFetch } from '../support/listening-service.js';
import type { ListeningService } from '../support/listening-service.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };
const noWait = async (): Promise<void> => {};

/** The global `fetch`, except that the answer to the first POST is lost after the service applied it. */
function losingFirstPostAnswer(): { fetch: typeof fetch; posts: number } {
  const state = {
    posts: 0,
    fetch: (async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'POST' && !String(input).includes('/auth/token') && ++state.posts === 1) {
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return response;
    }) as typeof fetch,
  };
  return state;
}

describe('client library: per-call options against the real service', () => {
  let service: ListeningService;
  let tenantClient: Client;
  let credentials: { clientId: string; privateKey: string };
  let systemCredentials: { clientId: string; privateKey: string };
  let tenantA: string;
  let tenantB: string;

  beforeAll(async () => {
    service = await listeningService();
    const own = await service.credentials(crud('products'));
    credentials = own;
    tenantClient = createClient({ baseUrl: service.origin, clientId: own.clientId, privateKey: own.privateKey });
    tenantA = await service.h.tenant('Tenant A');
    tenantB = await service.h.tenant('Tenant B');
    const system = await service.h.client(null, crud('products'));
    systemCredentials = { clientId: system.clientId, privateKey: system.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  });
  afterAll(() => service.close());

  it('create with an idempotencyKey: a repeat returns the first record, marked replayed', async () => {
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch });
    const key = `key-${Math.random().toString(36).slice(2)}`;
    const first = await client.products.create({ ...product, name: 'Once' }, { idempotencyKey: key });
    const again = await client.products.create({ ...product, name: 'Once' }, { idempotencyKey: key });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.record._id).toBe(first.record._id);
    expect(await client.products.list({ where: { name: 'Once' } }).toArray()).toHaveLength(1);
    expect(recorder.count('POST /v1/products')).toBe(2);
  });

  it('retries a keyed POST whose answer was lost, and the record exists once', async () => {
    const lossy = losingFirstPostAnswer();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: lossy.fetch, sleep: noWait });
    const created = await client.products.create({ ...product, name: 'Lost answer' }, { idempotencyKey: `lost-${Math.random().toString(36).slice(2)}` });
    expect(lossy.posts).toBe(2);
    expect(created.replayed).toBe(true);
    const all = await tenantClient.products.list({ where: { name: 'Lost answer' } }).toArray();
    expect(all.map((p) => p._id)).toEqual([created.record._id]);
  });

  it('still does not retry a POST without a key', async () => {
    const lossy = losingFirstPostAnswer();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: lossy.fetch, sleep: noWait });
    await expect(client.products.create({ ...product, name: 'Unkeyed' })).rejects.toMatchObject({ name: 'ConnectionError', attempts: 1 });
    expect(lossy.posts).toBe(1);
  });

  it('a system-level client names the tenant per call with tenantId', async () => {
    const system = createClient({ baseUrl: service.origin, clientId: systemCredentials.clientId, privateKey: systemCredentials.privateKey });
    await expect(system.products.create({ ...product, name: 'Nowhere' })).rejects.toBeInstanceOf(ValidationError);

    const created = await system.products.create({ ...product, name: 'In A' }, { tenantId: tenantA });
    expect(created.record.tenant_id).toBe(tenantA);
    const read = await system.products.get(created.record._id, { tenantId: tenantA });
    expect(read.record.name).toBe('In A');
    const updated = await system.products.update(created.record._id, { total_items: 7 }, { etag: read.etag, tenantId: tenantA });
    expect(updated.record.total_items).toBe(7);
    const retried = await system.products.updateWithRetry(created.record._id, (current) => ({ total_items: current.total_items + 1 }), { tenantId: tenantA });
    expect(retried.record.total_items).toBe(8);
    expect((await system.products.list({ tenantId: tenantA }).toArray()).map((p) => p._id)).toEqual([created.record._id]);
    expect(await system.products.list({ tenantId: tenantB }).toArray()).toEqual([]);
    const availability = await system.products.availability(created.record._id, { from: '2030-01-01', to: '2030-01-02', tenantId: tenantA });
    expect(availability.total_items).toBe(8);
    await system.products.delete(created.record._id, { etag: retried.etag, tenantId: tenantA });
    expect(await system.products.list({ tenantId: tenantA }).toArray()).toEqual([]);
  });

  it('a client-level tenantId is the default; a call overrides it', async () => {
    const system = createClient({ baseUrl: service.origin, clientId: systemCredentials.clientId, privateKey: systemCredentials.privateKey, tenantId: tenantB });
    const inB = await system.products.create({ ...product, name: 'Default B' });
    expect(inB.record.tenant_id).toBe(tenantB);
    const inA = await system.products.create({ ...product, name: 'Override A' }, { tenantId: tenantA });
    expect(inA.record.tenant_id).toBe(tenantA);
    const { body } = await system.request<{ items: { name: string }[] }>({ method: 'GET', path: '/products', tenantId: tenantA });
    expect(body.items.map((p) => p.name)).toEqual(['Override A']);
  });

  it('request() accepts a plain query object, arrays repeating the parameter', async () => {
    await tenantClient.products.create({ ...product, name: 'Query one', city: 'Query City' });
    await tenantClient.products.create({ ...product, name: 'Query two', city: 'Elsewhere' });
    const { body } = await tenantClient.request<{ items: Record<string, unknown>[] }>({ method: 'GET', path: '/products', query: { city: 'Query City', fields: 'name', per_page: 5 } });
    expect(body.items).toEqual([{ _id: expect.any(String), name: 'Query one' }]);

    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch });
    await client.request({ method: 'GET', path: '/products', query: { sort: ['name'], skipped: undefined } });
    expect(recorder.calls).toContain('GET /v1/products?sort=name');
  });

  it('request() refuses a query it cannot send with a TypeError, not ?[object Object]', async () => {
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch });
    const bad: unknown[] = [new Map([['city', 'Berlin']]), 'city=Berlin', { where: { city: 'Berlin' } }, { ids: [['a']] }];
    for (const query of bad) {
      await expect(client.request({ method: 'GET', path: '/products', query: query as URLSearchParams })).rejects.toBeInstanceOf(TypeError);
    }
    expect(recorder.count('/v1/products')).toBe(0);
  });
});
