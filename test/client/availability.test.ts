import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, NotFoundError, ValidationError } from '../../packages/client/src/index.js';
import type { Client } from '../../packages/client/src/index.js';
import { crud, listeningService } from '../support/listening-service.js';
import type { ListeningService } from '../support/listening-service.js';

const product = { address: 'Main St 1', city: 'Leipzig', zip_code: '04109', total_items: 2 };

describe('client library: availability against the real service', () => {
  let service: ListeningService;
  let client: Client;

  beforeAll(async () => {
    service = await listeningService();
    const credentials = await service.credentials([...crud('products'), ...crud('bookings')]);
    client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey });
  });
  afterAll(() => service.close());

  it("reads a product's day and hour slots in its time zone", async () => {
    const { record } = await client.products.create({ ...product, name: 'Hall', time_zone: 'Europe/Berlin' });
    await client.bookings.create({ product_id: record._id, start_time: '2030-10-27T08:00:00Z', end_time: '2030-10-27T10:00:00Z', quantity: 2 });
    const days = await client.products.availability(record._id, { from: '2030-10-26', to: '2030-10-28' });
    expect(days.time_zone).toBe('Europe/Berlin');
    expect(days.slots.map((s) => [s.start, s.booked, s.available])).toEqual([
      ['2030-10-25T22:00:00.000Z', 0, 2],
      ['2030-10-26T22:00:00.000Z', 2, 0],
    ]);
    const hours = await client.products.availability(record._id, { from: '2030-10-27', to: new Date('2030-10-27T23:00:00Z'), granularity: 'hour' });
    expect(hours.slots).toHaveLength(25);
    await expect(client.products.availability(record._id, { from: '2030-10-28', to: '2030-10-27' })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.products.availability('no-such-product', { from: '2030-10-27', to: '2030-10-28' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('searches available products page by page with filters and quantity', async () => {
    const names = ['Search A', 'Search B', 'Search C', 'Search D', 'Search E'];
    const ids: string[] = [];
    for (const name of names) ids.push((await client.products.create({ ...product, name, city: 'Dresden' })).record._id);
    await client.bookings.create({ product_id: ids[1] ?? '', start_time: '2030-05-02T00:00:00Z', end_time: '2030-05-03T00:00:00Z' });
    await client.bookings.create({ product_id: ids[2] ?? '', start_time: '2030-05-02T00:00:00Z', end_time: '2030-05-03T00:00:00Z', quantity: 2 });
    const search = client.availability.search({ from: '2030-05-01', to: '2030-05-08', quantity: 1, filters: { city: 'Dresden' }, sort: ['name'], fields: ['name'], perPage: 2 });
    const pages = [];
    for await (const page of search.pages()) pages.push(page.items.map((item) => [item.name, item.available]));
    expect(pages).toEqual([
      [
        ['Search A', 2],
        ['Search B', 1],
      ],
      [
        ['Search D', 2],
        ['Search E', 2],
      ],
    ]);
    const two = await client.availability.search({ from: '2030-05-01', to: '2030-05-08', quantity: 2, where: { city: 'Dresden', name: { $in: ['Search A', 'Search B'] } } }).toArray();
    expect(two.map((item) => item.name)).toEqual(['Search A']);
  });
});
