import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, NotFoundError, PermissionError, PreconditionFailedError, ProblemError, ValidationError } from '../../packages/client/src/index.js';
import type { Client } from '../../packages/client/src/index.js';
import { crud, listeningService } from '../support/listening-service.js';
import type { ListeningService } from '../support/listening-service.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

describe('client library: resources against the real service', () => {
  let service: ListeningService;
  let client: Client;

  beforeAll(async () => {
    service = await listeningService();
    const credentials = await service.credentials([...crud('products'), ...crud('bookings'), 'audit-logs:export']);
    client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey });
  });
  afterAll(() => service.close());

  it('creates, reads, updates and deletes with ETags', async () => {
    const created = await client.products.create(product);
    expect(created.record).toMatchObject({ ...product, status: 'active' });
    expect(created.etag).toMatch(/^"[^"]+"$/);

    const read = await client.products.get(created.record._id);
    expect(read).toEqual({ record: created.record, etag: created.etag });
    expect(created.replayed).toBe(false);

    const updated = await client.products.update(created.record._id, { total_items: 5 }, { etag: read.etag });
    expect(updated.record.total_items).toBe(5);
    expect(updated.etag).not.toBe(read.etag);

    await expect(client.products.delete(created.record._id, { etag: read.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    await client.products.delete(created.record._id, { etag: updated.etag });
    await expect(client.products.get(created.record._id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('pages through 250 records with an async iterator, following filters, sort and fields', async () => {
    const { record: parent } = await client.products.create({ ...product, name: 'Paged' });
    const start = Date.parse('2030-01-01T00:00:00Z');
    for (let i = 0; i < 250; i++) {
      const startTime = new Date(start + i * 3_600_000).toISOString();
      await client.bookings.create({ product_id: parent._id, start_time: startTime, end_time: new Date(start + i * 3_600_000 + 1_800_000).toISOString() });
    }
    const seen: string[] = [];
    for await (const booking of client.bookings.list({ where: { product_id: parent._id }, sort: ['start_time'], fields: ['start_time'], perPage: 40 })) {
      expect(Object.keys(booking).sort()).toEqual(['_id', 'start_time']);
      seen.push(booking.start_time);
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual([...seen].sort());

    const pages = [];
    for await (const page of client.bookings.list({ where: { product_id: parent._id }, perPage: 100 }).pages()) pages.push([page.page, page.items.length, page.total]);
    expect(pages).toEqual([
      [1, 100, 250],
      [2, 100, 250],
      [3, 50, 250],
    ]);

    const later = await client.bookings.list({ where: { product_id: parent._id, start_time: { $gte: new Date(start + 240 * 3_600_000) } } }).toArray();
    expect(later).toHaveLength(10);
  });

  it('updateWithRetry re-reads after a 412 and applies the change to the current record', async () => {
    const { record } = await client.products.create({ ...product, name: 'Contended' });
    let calls = 0;
    const result = await client.products.updateWithRetry(record._id, async (current) => {
      calls += 1;
      // Another writer changes the record between this read and the write, once.
      if (calls === 1) {
        const fresh = await client.products.get(record._id);
        await client.products.update(record._id, { total_items: current.total_items + 10 }, { etag: fresh.etag });
      }
      return { total_items: current.total_items + 1 };
    });
    expect(calls).toBe(2);
    expect(result.record.total_items).toBe(3 + 10 + 1);
    expect((await client.products.get(record._id)).etag).toBe(result.etag);
  });

  it('updateWithRetry gives up with PreconditionFailedError after maxAttempts', async () => {
    const { record } = await client.products.create({ ...product, name: 'Always contended' });
    const error = await client.products
      .updateWithRetry(
        record._id,
        async (current) => {
          const fresh = await client.products.get(record._id);
          await client.products.update(record._id, { total_items: fresh.record.total_items + 1 }, { etag: fresh.etag });
          return { name: `${current.name}!` };
        },
        { maxAttempts: 2 },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error).toMatchObject({ status: 412, code: 'precondition_failed' });
  });

  it('throws problems as typed errors with code, status and field errors', async () => {
    const invalid = await client.products.create({ ...product, total_items: -1 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toBeInstanceOf(ProblemError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed', errors: [expect.objectContaining({ field: 'total_items' })] });

    const badSort = await client.products
      .list({ sort: ['nope' as 'name'] })
      .toArray()
      .catch((e: unknown) => e);
    expect(badSort).toMatchObject({ status: 400, code: 'validation_failed' });

    const missing = await client.products.get('0000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found', instance: expect.stringContaining('/v1/products/0000') });

    const forbidden = await client.orders
      .list()
      .toArray()
      .catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(PermissionError);
    expect(forbidden).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect((forbidden as PermissionError).headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('hands over non-JSON answers of raw requests as text', async () => {
    // Its own product, so the export has an entry whichever tests ran before.
    await client.products.create({ name: 'Exported', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 1 });
    const response = await client.request<string>({ method: 'GET', path: '/audit-logs/export', query: new URLSearchParams({ resource: 'products' }) });
    expect(response.headers.get('content-type')).toContain('ndjson');
    const lines = response.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { resource: string; action: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((entry) => entry.resource === 'products')).toBe(true);
  });

  it('has a client per resource with only the operations the resource offers', () => {
    expect(Object.keys(client.products).sort()).toEqual(['availability', 'calendarFeed', 'calendarImports', 'create', 'delete', 'get', 'list', 'rates', 'update', 'updateWithRetry']);
    expect(Object.keys(client.orders).sort()).toEqual(['cancel', 'confirm', 'create', 'delete', 'get', 'list', 'update', 'updateWithRetry']);
    expect(Object.keys(client.quotes)).toEqual(['create']);
    expect(Object.keys(client.auditLogs).sort()).toEqual(['get', 'list']);
    // @ts-expect-error audit logs are read-only: the generated type has no create.
    expect(client.auditLogs.create).toBeUndefined();
  });
});
