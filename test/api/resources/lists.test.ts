import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { idsWhere, itemIds, listResources, seedLists } from '../../support/list-fixtures.js';
import type { Doc, Seeded } from '../../support/list-fixtures.js';
import { errorFields, expectProblem } from '../../support/problem.js';
import { steppingClock } from '../../support/stepping-clock.js';

type Predicate = (doc: Doc) => boolean;
const num = (doc: Doc, field: string): number => Number(doc[field]);
const str = (doc: Doc, field: string): string => String(doc[field] ?? '');

describe.each(dialects)('list filters on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let seed: Seeded;

  beforeAll(async () => {
    h = await createHarness(dialect, { clock: steppingClock() });
    const tenant = await h.tenant('Lists');
    token = await h.bearer(
      tenant,
      listResources.flatMap((r) => crud(r)),
    );
    seed = await seedLists(h, token);
  });
  afterAll(() => h.close());

  const docsOf = (resource: string): readonly Doc[] =>
    ({ products: seed.products, bookings: seed.bookings, orders: seed.orders, 'service-charges': seed.serviceCharges, subscriptions: seed.subscriptions })[resource] ?? [];

  async function list(resource: string, params: Record<string, string>) {
    const query = new URLSearchParams({ per_page: '100', ...params });
    return h.request({ method: 'GET', url: `/v1/${resource}/?${query.toString()}`, token });
  }

  /** Lists with the params and expects exactly the matching seeded records, newest first. */
  async function expectMatches(resource: string, params: Record<string, string>, predicate: Predicate): Promise<void> {
    const response = await list(resource, params);
    expect(response.statusCode, response.body).toBe(200);
    const expected = idsWhere(docsOf(resource), predicate).reverse();
    expect(expected.length, 'the filter should select a proper, non-empty subset').toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(docsOf(resource).length);
    expect(itemIds(response.json())).toEqual(expected);
    expect(response.json().total).toBe(expected.length);
  }

  const where = (filter: unknown): Record<string, string> => ({ where: JSON.stringify(filter) });

  describe('where operators', () => {
    it.each<[string, unknown, Predicate]>([
      ['equality on city', { city: 'Berlin' }, (d) => d.city === 'Berlin'],
      ['explicit $eq', { city: { $eq: 'Hamburg' } }, (d) => d.city === 'Hamburg'],
      ['$ne (also matches absent values)', { country: { $ne: 'DE' } }, (d) => d.country !== 'DE'],
      ['$gt', { total_items: { $gt: 20 } }, (d) => num(d, 'total_items') > 20],
      ['$gte', { total_items: { $gte: 20 } }, (d) => num(d, 'total_items') >= 20],
      ['$lt', { total_items: { $lt: 5 } }, (d) => num(d, 'total_items') < 5],
      ['$lte', { total_items: { $lte: 5 } }, (d) => num(d, 'total_items') <= 5],
      ['range on one field', { total_items: { $gt: 3, $lte: 9 } }, (d) => num(d, 'total_items') > 3 && num(d, 'total_items') <= 9],
      ['$in', { city: { $in: ['Berlin', 'Munich'] } }, (d) => d.city === 'Berlin' || d.city === 'Munich'],
      ['$nin', { city: { $nin: ['Berlin', 'Munich'] } }, (d) => d.city === 'Hamburg'],
      ['$exists true', { country: { $exists: true } }, (d) => d.country != null],
      ['$exists false', { country: { $exists: false } }, (d) => d.country == null],
      ['$regex', { name: { $regex: '^Lo' } }, (d) => /^Lo/.test(str(d, 'name'))],
      ['$regex with $options i', { name: { $regex: '^lo', $options: 'i' } }, (d) => /^lo/i.test(str(d, 'name'))],
      ['$regex is case-sensitive without options', { name: { $regex: '^lo' } }, (d) => /^lo/.test(str(d, 'name'))],
      ['is_published true', { is_published: true }, (d) => d.is_published === true],
      ['is_published false', { is_published: false }, (d) => d.is_published === false],
      ['status', { status: 'maintenance' }, (d) => d.status === 'maintenance'],
      ['several fields (AND)', { city: 'Berlin', is_published: true }, (d) => d.city === 'Berlin' && d.is_published === true],
      ['$and', { $and: [{ city: 'Berlin' }, { total_items: { $gte: 10 } }] }, (d) => d.city === 'Berlin' && num(d, 'total_items') >= 10],
      ['$or', { $or: [{ city: 'Munich' }, { status: 'maintenance' }] }, (d) => d.city === 'Munich' || d.status === 'maintenance'],
      ['$not', { $not: { city: 'Berlin' } }, (d) => d.city !== 'Berlin'],
      ['field-level $not', { total_items: { $not: { $gt: 5 } } }, (d) => !(num(d, 'total_items') > 5)],
      [
        'nested logic',
        { $or: [{ $and: [{ city: 'Berlin' }, { $not: { is_published: true } }] }, { name: { $regex: 'suite', $options: 'i' } }] },
        (d) => (d.city === 'Berlin' && d.is_published !== true) || /suite/i.test(str(d, 'name')),
      ],
    ])('products: %s', async (_name, filter, predicate) => {
      await expectMatches('products', where(filter), predicate);
    });

    it('subscriptions: $exists on valid_until', async () => {
      await expectMatches('subscriptions', where({ valid_until: { $exists: true } }), (d) => d.valid_until != null);
      await expectMatches('subscriptions', where({ valid_until: { $exists: false } }), (d) => d.valid_until == null);
      await expectMatches('subscriptions', where({ valid_until: null }), (d) => d.valid_until == null);
    });

    it('service charges: amount $gt and $lte with decimals', async () => {
      await expectMatches('service-charges', where({ amount: { $gt: 50 } }), (d) => num(d, 'amount') > 50);
      await expectMatches('service-charges', where({ amount: { $gt: 12.5, $lte: 40 } }), (d) => num(d, 'amount') > 12.5 && num(d, 'amount') <= 40);
    });

    it('orders: time ranges, also across zone offsets', async () => {
      const from = '2026-03-05T00:00:00Z';
      const to = '2026-03-15T00:00:00Z';
      const inRange: Predicate = (d) => str(d, 'start_time') >= '2026-03-05T00:00:00.000Z' && str(d, 'start_time') < '2026-03-15T00:00:00.000Z';
      await expectMatches('orders', where({ start_time: { $gte: from, $lt: to } }), inRange);
      await expectMatches('orders', where({ start_time: { $gte: '2026-03-05T02:00:00+02:00', $lt: '2026-03-14T19:00:00-05:00' } }), inRange);
      await expectMatches(
        'orders',
        where({ status: { $in: ['active', 'confirmed'] }, end_time: { $lt: to } }),
        (d) => ['active', 'confirmed'].includes(str(d, 'status')) && str(d, 'end_time') < '2026-03-15T00:00:00.000Z',
      );
    });

    it('bookings: status equality and product reference', async () => {
      const product = seed.products[3]?._id ?? '';
      await expectMatches('bookings', where({ status: 'active' }), (d) => d.status === 'active');
      await expectMatches('bookings', where({ product_id: product }), (d) => d.product_id === product);
      await expectMatches('bookings', where({ reference: { $exists: true }, quantity: { $in: [2, 4] } }), (d) => d.reference != null && [2, 4].includes(num(d, 'quantity')));
    });
  });

  describe('query-parameter filters', () => {
    it.each<[string, string, Record<string, string>, Predicate]>([
      ['string equality', 'products', { city: 'Hamburg' }, (d) => d.city === 'Hamburg'],
      ['integer comparison', 'products', { total_items__gte: '10', total_items__lt: '20' }, (d) => num(d, 'total_items') >= 10 && num(d, 'total_items') < 20],
      ['integer equality', 'products', { total_items: '7' }, (d) => num(d, 'total_items') === 7],
      ['boolean', 'products', { is_published: 'true' }, (d) => d.is_published === true],
      ['boolean ne', 'products', { is_published__ne: 'true' }, (d) => d.is_published !== true],
      ['in list', 'products', { city__in: 'Berlin,Hamburg' }, (d) => d.city === 'Berlin' || d.city === 'Hamburg'],
      ['nin list', 'products', { city__nin: 'Berlin,Hamburg' }, (d) => d.city === 'Munich'],
      ['ne', 'products', { status__ne: 'active' }, (d) => d.status !== 'active'],
      ['regex', 'products', { name__regex: '^(Loft|Suite) ' }, (d) => /^(Loft|Suite) /.test(str(d, 'name'))],
      ['exists', 'products', { country__exists: 'false' }, (d) => d.country == null],
      ['number', 'service-charges', { amount__gt: '50' }, (d) => num(d, 'amount') > 50],
      ['decimal number', 'service-charges', { amount__lte: '12.5' }, (d) => num(d, 'amount') <= 12.5],
      [
        'timestamp',
        'orders',
        { start_time__gte: '2026-03-10T00:00:00Z', end_time__lte: '2026-03-20T00:00:00.000Z' },
        (d) => str(d, 'start_time') >= '2026-03-10T00:00:00.000Z' && str(d, 'end_time') <= '2026-03-20T00:00:00.000Z',
      ],
      ['timestamp with offset', 'orders', { start_time__lt: '2026-03-10T01:00:00+01:00' }, (d) => str(d, 'start_time') < '2026-03-10T00:00:00.000Z'],
      ['timestamp exists', 'subscriptions', { valid_until__exists: 'true' }, (d) => d.valid_until != null],
      ['combined with where (AND)', 'products', { where: JSON.stringify({ city: 'Berlin' }), is_published: 'true' }, (d) => d.city === 'Berlin' && d.is_published === true],
      [
        'where $or AND a parameter',
        'products',
        { where: JSON.stringify({ $or: [{ city: 'Berlin' }, { city: 'Munich' }] }), total_items__gt: '15' },
        (d) => d.city !== 'Hamburg' && num(d, 'total_items') > 15,
      ],
    ])('%s', async (_name, resource, params, predicate) => {
      await expectMatches(resource, params, predicate);
    });

    it.each([
      ['products', 'total_items=abc'],
      ['products', 'total_items=1.5'],
      ['products', 'total_items__gt=0x10'],
      ['products', 'total_items__gt='],
      ['products', 'is_published=yes'],
      ['products', 'is_published=1'],
      ['products', 'country__exists=maybe'],
      ['products', 'city__in=Berlin,,Hamburg'],
      ['service-charges', 'amount__gt=1e'],
      ['service-charges', 'amount__gt=Infinity'],
      ['service-charges', 'amount=NaN'],
      ['orders', 'start_time__gt=2026-13-01T00:00:00Z'],
      ['orders', 'start_time__gt=2026-02-30T00:00:00Z'],
      ['orders', 'start_time__gt=2026-03-01T00:00:00'],
      ['orders', 'start_time=yesterday'],
      ['orders', 'status__regex=(unclosed'],
      ['products', 'is_published__gt=true'],
      ['products', 'city__like=Ber%25'],
      ['products', 'nope=1'],
    ])('%s?%s → 400 naming the parameter', async (resource, query) => {
      const response = await h.request({ method: 'GET', url: `/v1/${resource}/?${query}`, token });
      const problem = expectProblem(response, 400, 'validation_failed');
      expect(errorFields(problem)).toEqual([query.split('=')[0]]);
    });
  });
});
