import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { itemIds, listResources, seedLists } from '../../support/list-fixtures.js';
import type { Doc, Seeded } from '../../support/list-fixtures.js';
import { errorFields, expectProblem } from '../../support/problem.js';
import { steppingClock } from '../../support/stepping-clock.js';

/** RFC 8288 `Link` header → relation → target URL. */
function links(header: unknown): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of String(header ?? '').split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (match?.[1] && match[2]) out[match[2]] = new URL(match[1]);
  }
  return out;
}

describe.each(dialects)('list sorting, fields and pagination on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let seed: Seeded;

  beforeAll(async () => {
    h = await createHarness(dialect, { clock: steppingClock() });
    const tenant = await h.tenant('Paging');
    token = await h.bearer(
      tenant,
      listResources.flatMap((r) => crud(r)),
    );
    seed = await seedLists(h, token);
  });
  afterAll(() => h.close());

  const get = (url: string) => h.request({ method: 'GET', url, token });
  const newestFirst = (docs: readonly Doc[]): string[] => docs.map((d) => d._id).reverse();

  it('sorts by -created_at by default, with the envelope and headers', async () => {
    const response = await get('/v1/products/');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['items', 'page', 'per_page', 'total']);
    expect(body).toMatchObject({ total: 30, page: 1, per_page: 25 });
    expect(itemIds(body)).toEqual(newestFirst(seed.products).slice(0, 25));
    expect(response.headers).toMatchObject({ 'x-total-count': '30', 'x-page': '1', 'x-per-page': '25', 'x-total-pages': '2' });
  });

  it('sorts by several keys, ascending and descending', async () => {
    const response = await get('/v1/products/?sort=city,-total_items&per_page=100');
    const expected = [...seed.products].sort((a, b) => String(a.city).localeCompare(String(b.city)) || Number(b.total_items) - Number(a.total_items)).map((d) => d._id);
    expect(itemIds(response.json())).toEqual(expected);
    const byStatus = await get('/v1/products/?sort=-status,name&per_page=100');
    const names = (byStatus.json().items as Doc[]).map((d) => `${String(d.status)}|${String(d.name)}`);
    // Byte order: upper case before lower case ("Suite" < "loft"), the same on both databases.
    const expectedNames = seed.products
      .map((d) => `${String(d.status)}|${String(d.name)}`)
      .sort((a, b) => {
        const [sa = '', na = ''] = a.split('|');
        const [sb = '', nb = ''] = b.split('|');
        return sa === sb ? (na < nb ? -1 : na > nb ? 1 : 0) : sa < sb ? 1 : -1;
      });
    expect(names).toEqual(expectedNames);
  });

  it('sorts timestamps and numbers by value', async () => {
    const bookings = await get('/v1/bookings/?sort=-end_time,start_time&per_page=100');
    const ends = (bookings.json().items as Doc[]).map((d) => String(d.end_time));
    expect(ends).toEqual([...ends].sort().reverse());
    const charges = await get('/v1/service-charges/?sort=amount&per_page=100');
    const amounts = (charges.json().items as Doc[]).map((d) => Number(d.amount));
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
  });

  it.each(['sort=nope', 'sort=-', 'sort=city,city', 'sort=description', 'sort=name;drop table products'])('refuses %s', async (query) => {
    expect(errorFields(expectProblem(await get(`/v1/products/?${query}`), 400, 'validation_failed'))).toEqual(['sort']);
  });

  it('returns only the requested fields, always with _id', async () => {
    const response = await get('/v1/products/?fields=name,city&per_page=100');
    expect(response.statusCode).toBe(200);
    for (const item of response.json().items as Doc[]) expect(Object.keys(item).sort()).toEqual(['_id', 'city', 'name']);
    const idOnly = await get('/v1/products/?fields=_id&per_page=3');
    expect(idOnly.json().items).toEqual(
      newestFirst(seed.products)
        .slice(0, 3)
        .map((_id) => ({ _id })),
    );
    const withFilter = await get('/v1/bookings/?fields=status&status=cancelled&sort=start_time');
    for (const item of withFilter.json().items as Doc[]) expect(item).toEqual({ _id: item._id, status: 'cancelled' });
  });

  it.each(['fields=nope', 'fields=name,', 'fields=', 'fields=public_key', 'fields=__proto__'])('refuses %s', async (query) => {
    expect(errorFields(expectProblem(await get(`/v1/products/?${query}`), 400, 'validation_failed'))).toEqual(['fields']);
  });

  it('pages through every record exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page += 1) {
      const response = await get(`/v1/products/?per_page=8&page=${page}`);
      expect(response.json()).toMatchObject({ page, per_page: 8, total: 30 });
      expect(response.headers['x-total-pages']).toBe('4');
      seen.push(...itemIds(response.json()));
    }
    expect(seen).toEqual(newestFirst(seed.products));
  });

  it('accepts per_page 1 and 100', async () => {
    expect((await get('/v1/products/?per_page=1')).json().items).toHaveLength(1);
    const all = await get('/v1/orders/?per_page=100');
    expect(all.json()).toMatchObject({ total: 30, per_page: 100 });
    expect(all.json().items).toHaveLength(30);
    expect(all.headers['x-total-pages']).toBe('1');
  });

  it.each(['per_page=101', 'per_page=0', 'per_page=-1', 'per_page=abc', 'per_page=1.5', 'per_page=1e2', 'page=0', 'page=-1', 'page=abc', 'page=', 'page=1&page=2'])('refuses %s', async (query) => {
    expect(errorFields(expectProblem(await get(`/v1/products/?${query}`), 400, 'validation_failed'))).toEqual([query.split('=')[0]]);
  });

  it('links first, prev, next and last, keeping the other parameters', async () => {
    const where = JSON.stringify({ city: { $ne: 'Munich' } });
    const query = new URLSearchParams({ where, sort: '-total_items', fields: 'name,total_items', per_page: '5', page: '2' });
    const response = await get(`/v1/products/?${query.toString()}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().total).toBe(20);
    const rel = links(response.headers.link);
    expect(Object.keys(rel).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(Object.fromEntries(Object.entries(rel).map(([k, url]) => [k, url.searchParams.get('page')]))).toEqual({ first: '1', prev: '1', next: '3', last: '4' });
    for (const url of Object.values(rel)) {
      expect(url.origin + url.pathname).toBe('http://api.test/v1/products/');
      expect(url.searchParams.get('where')).toBe(where);
      expect(url.searchParams.get('sort')).toBe('-total_items');
      expect(url.searchParams.get('fields')).toBe('name,total_items');
      expect(url.searchParams.get('per_page')).toBe('5');
    }
    // Following `next` continues exactly where this page ended.
    const next = await get(`${rel.next?.pathname}${rel.next?.search}`);
    const totals = (next.json().items as Doc[]).map((d) => Number(d.total_items));
    const current = (response.json().items as Doc[]).map((d) => Number(d.total_items));
    expect(Math.min(...current)).toBeGreaterThan(Math.max(...totals));
  });

  it('keeps a literal ? inside a parameter value in the links', async () => {
    const response = await get('/v1/products/?name__regex=^Lo?&per_page=2&sort=name');
    expect(response.statusCode).toBe(200);
    const next = links(response.headers.link).next;
    expect(next?.searchParams.get('name__regex')).toBe('^Lo?');
    expect(next?.searchParams.get('sort')).toBe('name');
    const followed = await get(`${next?.pathname}${next?.search}`);
    expect(followed.json()).toMatchObject({ page: 2, per_page: 2, total: response.json().total });
  });

  it('has no prev link on the first page and no next link on the last', async () => {
    const first = links((await get('/v1/products/?per_page=10')).headers.link);
    expect(Object.keys(first).sort()).toEqual(['first', 'last', 'next']);
    const last = links((await get('/v1/products/?per_page=10&page=3')).headers.link);
    expect(Object.keys(last).sort()).toEqual(['first', 'last', 'prev']);
    expect(last.last?.searchParams.get('page')).toBe('3');
  });

  it('answers a page past the end with no items and the right total', async () => {
    const response = await get('/v1/products/?per_page=10&page=7');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ items: [], total: 30, page: 7, per_page: 10 });
    expect(response.headers).toMatchObject({ 'x-total-count': '30', 'x-page': '7', 'x-total-pages': '3' });
    expect(links(response.headers.link).prev?.searchParams.get('page')).toBe('3');
    const none = await get(`/v1/products/?city=Nowhere&page=2`);
    expect(none.json()).toEqual({ items: [], total: 0, page: 2, per_page: 25 });
    expect(none.headers['x-total-pages']).toBe('1');
  });

  it('answers on /v1/bookings and /v1/bookings/ alike', async () => {
    const bare = await get('/v1/bookings?per_page=100&status=active');
    const slash = await get('/v1/bookings/?per_page=100&status=active');
    expect(bare.statusCode).toBe(200);
    expect(slash.statusCode).toBe(200);
    expect(bare.json()).toEqual(slash.json());
    expect(bare.json().total).toBe(seed.bookings.filter((d) => d.status === 'active').length);
  });

  it('never lists soft-deleted records', async () => {
    for (const [resource, ids] of Object.entries(seed.deleted)) {
      const all = await get(`/v1/${resource}/?per_page=100`);
      expect(all.json().total).toBe(30);
      for (const id of ids) {
        expect(itemIds(all.json())).not.toContain(id);
        const byId = await get(`/v1/${resource}/?_id=${id}`);
        expect(byId.json()).toMatchObject({ items: [], total: 0 });
        const byWhere = await get(`/v1/${resource}/?where=${encodeURIComponent(JSON.stringify({ $or: [{ _id: id }, { _id: { $ne: id } }] }))}&per_page=100`);
        expect(byWhere.json().total).toBe(30);
      }
    }
  });
});
