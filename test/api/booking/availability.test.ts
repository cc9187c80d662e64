import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const at = (d: number, h = 0) => new Date(Date.UTC(2030, 0, d, h)).toISOString();

interface Slot {
  start: string;
  end: string;
  booked: number;
  available: number;
}

describe.each(dialects)('availability on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let tenant: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    tenant = await h.tenant('Availability');
    token = await h.bearer(tenant, [...crud('products'), ...crud('bookings')]);
  });
  afterAll(() => h.close());

  async function product(total: number, extra: Record<string, unknown> = {}, as = token): Promise<string> {
    const created = await h.request({ method: 'POST', url: '/v1/products/', token: as, body: { name: 'Room', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: total, ...extra } });
    expect(created.statusCode, created.body).toBe(201);
    return String(created.json()._id);
  }
  async function book(productId: string, start: string, end: string, extra: Record<string, unknown> = {}): Promise<{ id: string; etag: string }> {
    const response = await h.request({ method: 'POST', url: '/v1/bookings/', token, body: { product_id: productId, start_time: start, end_time: end, ...extra } });
    expect(response.statusCode, response.body).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag) };
  }
  const availability = (id: string, query: string, as = token) => h.request({ method: 'GET', url: `/v1/products/${id}/availability?${query}`, token: as });
  async function slots(id: string, query: string): Promise<Slot[]> {
    const response = await availability(id, query);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().slots as Slot[];
  }
  async function patchProduct(id: string, body: Record<string, unknown>) {
    const read = await h.request({ method: 'GET', url: `/v1/products/${id}`, token });
    return h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body, headers: { 'if-match': String(read.headers.etag) } });
  }

  it('answers day slots with booked as the peak within each slot', async () => {
    const p = await product(3);
    await book(p, at(1, 10), at(1, 12));
    await book(p, at(1, 11), at(2, 1), { quantity: 2 });
    await book(p, at(2, 5), at(2, 6));
    const response = await availability(p, 'from=2030-01-01&to=2030-01-04');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ product_id: p, total_items: 3, time_zone: 'UTC', granularity: 'day', from: at(1), to: at(4) });
    expect(response.json().slots).toEqual([
      { start: at(1), end: at(2), booked: 3, available: 0 },
      { start: at(2), end: at(3), booked: 2, available: 1 },
      { start: at(3), end: at(4), booked: 0, available: 3 },
    ]);
  });

  it('treats slots and bookings as half-open and ignores cancelled bookings', async () => {
    const p = await product(2);
    await book(p, at(1, 20), at(2));
    await book(p, at(2), at(2, 3));
    const cancelled = await book(p, at(3, 1), at(3, 2), { quantity: 2 });
    const patched = await h.request({ method: 'PATCH', url: `/v1/bookings/${cancelled.id}`, token, body: { status: 'cancelled' }, headers: { 'if-match': cancelled.etag } });
    expect(patched.statusCode).toBe(200);
    const days = await slots(p, `from=2030-01-01&to=2030-01-04`);
    expect(days.map((s) => s.booked)).toEqual([1, 1, 0]);
    const hours = await slots(p, `from=${encodeURIComponent(at(1, 19))}&to=${encodeURIComponent(at(2, 1))}&granularity=hour`);
    expect(hours.map((s) => s.booked)).toEqual([0, 1, 1, 1, 1, 1]);
  });

  it('aligns a timestamp range to the covering slot boundaries', async () => {
    const p = await product(1);
    const response = await availability(p, `from=${encodeURIComponent('2030-01-01T10:30:00Z')}&to=${encodeURIComponent('2030-01-02T00:00:01Z')}`);
    expect(response.json()).toMatchObject({ from: at(1), to: at(3) });
    expect(response.json().slots).toHaveLength(2);
  });

  it('cuts Europe/Berlin days at local midnight: 23 hours on 2030-03-31, 25 on 2030-10-27', async () => {
    const p = await product(2, { time_zone: 'Europe/Berlin' });
    const spring = await slots(p, 'from=2030-03-30&to=2030-04-02');
    expect(spring.map((s) => [s.start, s.end])).toEqual([
      ['2030-03-29T23:00:00.000Z', '2030-03-30T23:00:00.000Z'],
      ['2030-03-30T23:00:00.000Z', '2030-03-31T22:00:00.000Z'],
      ['2030-03-31T22:00:00.000Z', '2030-04-01T22:00:00.000Z'],
    ]);
    const autumn = await slots(p, 'from=2030-10-26&to=2030-10-29');
    expect(autumn.map((s) => [s.start, s.end])).toEqual([
      ['2030-10-25T22:00:00.000Z', '2030-10-26T22:00:00.000Z'],
      ['2030-10-26T22:00:00.000Z', '2030-10-27T23:00:00.000Z'],
      ['2030-10-27T23:00:00.000Z', '2030-10-28T23:00:00.000Z'],
    ]);
    // A booking in the last hour of the long day counts in that day only.
    await book(p, '2030-10-27T22:00:00Z', '2030-10-27T23:00:00Z');
    expect((await slots(p, 'from=2030-10-26&to=2030-10-29')).map((s) => s.booked)).toEqual([0, 1, 0]);
  });

  it('answers 23 and 25 hour slots on the Berlin daylight-saving days', async () => {
    const p = await product(1, { time_zone: 'Europe/Berlin' });
    const spring = await slots(p, 'from=2030-03-31&to=2030-04-01&granularity=hour');
    expect(spring).toHaveLength(23);
    expect(spring[0]?.start).toBe('2030-03-30T23:00:00.000Z');
    expect(spring[22]?.end).toBe('2030-03-31T22:00:00.000Z');
    expect(spring.every((s) => Date.parse(s.end) - Date.parse(s.start) === 3_600_000)).toBe(true);
    const autumn = await slots(p, 'from=2030-10-27&to=2030-10-28&granularity=hour');
    expect(autumn).toHaveLength(25);
    expect(autumn[0]?.start).toBe('2030-10-26T22:00:00.000Z');
    expect(autumn[24]?.end).toBe('2030-10-27T23:00:00.000Z');
  });

  it('refuses more than 366 day slots or 744 hour slots, and bad ranges', async () => {
    const p = await product(1);
    expect((await slots(p, 'from=2030-01-01&to=2031-01-02')).length).toBe(366);
    expectProblem(await availability(p, 'from=2030-01-01&to=2031-01-03'), 400, 'validation_failed');
    expect((await slots(p, 'from=2030-01-01&to=2030-02-01&granularity=hour')).length).toBe(744);
    expectProblem(await availability(p, `from=2030-01-01&to=${encodeURIComponent('2030-02-01T01:00:00Z')}&granularity=hour`), 400, 'validation_failed');
    const week = expectProblem(await availability(p, 'from=2030-01-01&to=2030-01-02&granularity=week'), 400, 'validation_failed');
    expect(week.errors?.map((e) => e.field)).toEqual(['granularity']);
    // The query schema names every problem at once: the missing range and the unknown granularity.
    const missing = expectProblem(await availability(p, 'granularity=week'), 400, 'validation_failed');
    expect(missing.errors?.map((e) => e.field)).toEqual(['from', 'to', 'granularity']);
    const both = expectProblem(await availability(p, 'to=yesterday'), 400, 'validation_failed');
    expect(both.errors?.map((e) => e.field)).toEqual(['from', 'to']);
    expectProblem(await availability(p, 'from=2030-01-02&to=2030-01-01'), 400, 'validation_failed');
    expectProblem(await availability(p, 'from=2030-02-30&to=2030-03-01'), 400, 'validation_failed');
    expectProblem(await availability(p, 'from=2030-01-01&to=2030-01-02&extra=1'), 400, 'validation_failed');
    // A repeated parameter is named as such, in the same words as the search's.
    for (const query of ['from=2030-01-01&from=2030-01-01&to=2030-01-02', 'from=2030-01-01&to=2030-01-02&granularity=hour&granularity=day']) {
      const repeated = expectProblem(await availability(p, query), 400, 'validation_failed');
      expect(repeated.errors).toEqual([{ field: query.includes('granularity=day') ? 'granularity' : 'from', message: 'given more than once' }]);
    }
    const searched = expectProblem(await h.request({ method: 'GET', url: '/v1/availability?from=2030-01-01&from=2030-01-01&to=2030-01-02', token }), 400, 'validation_failed');
    expect(searched.errors).toEqual([{ field: 'from', message: 'given more than once' }]);
  });

  it('offers nothing while the product is in maintenance', async () => {
    const p = await product(4);
    await book(p, at(1, 1), at(1, 2));
    expect((await patchProduct(p, { status: 'maintenance' })).statusCode).toBe(200);
    expect(await slots(p, 'from=2030-01-01&to=2030-01-03')).toEqual([
      { start: at(1), end: at(2), booked: 1, available: 0 },
      { start: at(2), end: at(3), booked: 0, available: 0 },
    ]);
  });

  it("answers 404 for a product outside the caller's reach and 403 without products:read", async () => {
    const p = await product(1);
    const other = await h.bearer(await h.tenant('Other'), crud('products'));
    expectProblem(await availability(p, 'from=2030-01-01&to=2030-01-02', other), 404, 'not_found');
    const listOnly = await h.bearer(tenant, ['products:list']);
    expectProblem(await availability(p, 'from=2030-01-01&to=2030-01-02', listOnly), 403, 'insufficient_scope');
    expectProblem(await h.request({ method: 'GET', url: '/v1/availability?from=2030-01-01&to=2030-01-02', token: await h.bearer(tenant, ['products:read']) }), 403, 'insufficient_scope');
  });

  it('defaults time_zone to UTC and refuses unknown zones on create and update', async () => {
    const p = await product(1);
    expect((await h.request({ method: 'GET', url: `/v1/products/${p}`, token })).json().time_zone).toBe('UTC');
    const created = await h.request({ method: 'POST', url: '/v1/products/', token, body: { name: 'X', address: 'A', city: 'B', zip_code: '1', total_items: 1, time_zone: 'Mars/Olympus' } });
    const refused = expectProblem(created, 400, 'validation_failed');
    expect(refused.errors?.map((e) => e.field)).toEqual(['time_zone']);
    expectProblem(await patchProduct(p, { time_zone: '+01:00' }), 400, 'validation_failed');
    expectProblem(await patchProduct(p, { time_zone: 'europe/berlin' }), 400, 'validation_failed');
    const moved = await patchProduct(p, { time_zone: 'America/New_York' });
    expect(moved.json().time_zone).toBe('America/New_York');
  });

  describe('search', () => {
    let searcher: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const own = await h.tenant('Search');
      searcher = await h.bearer(own, [...crud('products'), ...crud('bookings')]);
      const make = async (name: string, city: string, total: number, extra: Record<string, unknown> = {}) => {
        ids[name] = await product(total, { name, city, ...extra }, searcher);
      };
      await make('free', 'Berlin', 3);
      await make('busy', 'Berlin', 2);
      await make('partly', 'Berlin', 3);
      await make('closed', 'Berlin', 5, { status: 'maintenance' });
      await make('elsewhere', 'Hamburg', 9);
      const hold = async (name: string, start: string, end: string, quantity: number) => {
        const response = await h.request({ method: 'POST', url: '/v1/bookings/', token: searcher, body: { product_id: ids[name], start_time: start, end_time: end, quantity } });
        expect(response.statusCode, response.body).toBe(201);
      };
      await hold('busy', at(3), at(4), 2);
      await hold('partly', at(2), at(3), 2);
      await hold('partly', at(7), at(8), 3);
    });

    const search = (query: string) => h.request({ method: 'GET', url: `/v1/availability?${query}`, token: searcher });
    const names = (response: { json(): { items: { name: string }[] } }) => response.json().items.map((item) => item.name);

    it('lists the products of a city with quantity units free throughout, with available', async () => {
      const one = await search('from=2030-01-01&to=2030-01-07&city=Berlin&sort=name');
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json().items.map((i: { name: string; available: number }) => [i.name, i.available])).toEqual([
        ['free', 3],
        ['partly', 1],
      ]);
      expect(one.json()).toMatchObject({ total: 2, page: 1 });
      expect(one.headers['x-total-count']).toBe('2');
      expect(names(await search('from=2030-01-01&to=2030-01-07&city=Berlin&quantity=2&sort=name'))).toEqual(['free']);
      // Half-open: the busy product is free again from day 4 on.
      expect(names(await search('from=2030-01-04&to=2030-01-07&city=Berlin&quantity=2&sort=name'))).toEqual(['busy', 'free', 'partly']);
    });

    it('pages, filters with where and selects fields', async () => {
      const first = await search('from=2030-01-01&to=2030-01-02&sort=name&per_page=2');
      expect(names(first)).toEqual(['busy', 'elsewhere']);
      expect(first.json().total).toBe(4);
      expect(first.headers.link).toContain('rel="next"');
      expect(names(await search('from=2030-01-01&to=2030-01-02&sort=name&per_page=2&page=2'))).toEqual(['free', 'partly']);
      const where = encodeURIComponent(JSON.stringify({ $or: [{ city: 'Hamburg' }, { total_items: { $gte: 3 } }] }));
      const filtered = await search(`from=2030-01-01&to=2030-01-02&where=${where}&sort=-total_items,name&fields=name`);
      expect(filtered.json().items).toEqual([
        { _id: ids.elsewhere, name: 'elsewhere', available: 9, price: null },
        { _id: ids.free, name: 'free', available: 3, price: null },
        { _id: ids.partly, name: 'partly', available: 3, price: null },
      ]);
      // `available` and the stay's `price` always come, so `fields` may name `available`; it is not a product column.
      const named = await search(`from=2030-01-01&to=2030-01-02&where=${where}&sort=-total_items,name&fields=available,name`);
      expect(named.json().items).toEqual(filtered.json().items);
      expect((await search('from=2030-01-01&to=2030-01-02&sort=name&fields=available')).json().items[0]).toEqual({ _id: ids.busy, available: expect.any(Number), price: null });
      expectProblem(await search('from=2030-01-01&to=2030-01-02&fields=booked'), 400, 'validation_failed');
    });

    it("resolves dates in each product's zone: a range empty there is a 400 for the product, and left out of a search", async () => {
      const berlin = await product(1, { name: 'berlin', city: 'Zoned', time_zone: 'Europe/Berlin' }, searcher);
      await product(1, { name: 'utc', city: 'Zoned' }, searcher);
      // Local midnight of June 2 in Berlin is 2030-06-01T22:00Z, before `from`.
      const range = `from=${encodeURIComponent('2030-06-01T22:30:00Z')}&to=2030-06-02`;
      const refused = expectProblem(await h.request({ method: 'GET', url: `/v1/products/${berlin}/availability?${range}`, token: searcher }), 400, 'validation_failed');
      expect(refused.errors).toEqual([{ field: 'to', message: "must be after from (in the product's time zone Europe/Berlin)" }]);
      expect(names(await search(`${range}&city=Zoned`))).toEqual(['utc']);
    });

    it('refuses bad parameters with 400', async () => {
      expectProblem(await search('from=2030-01-01&to=2030-01-02&quantity=0'), 400, 'validation_failed');
      expectProblem(await search('from=2030-01-01&to=2030-01-02&colour=red'), 400, 'validation_failed');
      expectProblem(await search('from=2030-01-01'), 400, 'validation_failed');
      expectProblem(await search('from=2030-01-01&to=2031-01-03'), 400, 'validation_failed');
    });
  });
});
