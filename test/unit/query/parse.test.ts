import { describe, expect, it } from 'vitest';
import { MAX_PER_PAGE } from '../../../src/query/limits.js';
import { parseListQuery } from '../../../src/query/parse-list-query.js';
import { parseQueryFilters } from '../../../src/query/parse-query-filters.js';
import { parseWhere } from '../../../src/query/parse-where.js';
import { getResource } from '../../../src/registry/index.js';
import type { FieldOperator, ResourceDef } from '../../../src/registry/types.js';
import { expectQueryError } from './expect-query-error.js';

const products = getResource('products');
const bookings = getResource('bookings');
const orders = getResource('orders');
const users = getResource('users');
const apiClients = getResource('api-clients');
const auditLogs = getResource('audit-logs');

const where = (value: unknown) => parseWhere(products, JSON.stringify(value));
const reserved: ReadonlySet<string> = new Set(['where', 'page', 'per_page', 'sort', 'fields']);
const filters = (query: Record<string, string | string[] | undefined>, resource: ResourceDef = products) => parseQueryFilters(resource, query, reserved);

describe('parseWhere: structure', () => {
  it('reads a scalar as $eq and null as $eq null', () => {
    expect(where({ city: 'Berlin' })).toEqual({ kind: 'cmp', field: 'city', op: '$eq', value: 'Berlin' });
    expect(where({ country: null })).toEqual({ kind: 'cmp', field: 'country', op: '$eq', value: null });
  });

  it('combines several fields and several operators with AND', () => {
    expect(where({ city: 'B', total_items: { $gt: 1, $lte: 5 } })).toEqual({
      kind: 'and',
      children: [
        { kind: 'cmp', field: 'city', op: '$eq', value: 'B' },
        {
          kind: 'and',
          children: [
            { kind: 'cmp', field: 'total_items', op: '$gt', value: 1 },
            { kind: 'cmp', field: 'total_items', op: '$lte', value: 5 },
          ],
        },
      ],
    });
  });

  it('builds $and, $or and $not nodes', () => {
    expect(where({ $or: [{ city: 'A' }, { $not: { city: 'B' } }], $and: [{ status: 'active' }] })).toEqual({
      kind: 'and',
      children: [
        {
          kind: 'or',
          children: [
            { kind: 'cmp', field: 'city', op: '$eq', value: 'A' },
            { kind: 'not', child: { kind: 'cmp', field: 'city', op: '$eq', value: 'B' } },
          ],
        },
        { kind: 'and', children: [{ kind: 'cmp', field: 'status', op: '$eq', value: 'active' }] },
      ],
    });
  });

  it('reads a field-level $not of operators', () => {
    expect(where({ total_items: { $not: { $gt: 5 } } })).toEqual({
      kind: 'not',
      child: { kind: 'cmp', field: 'total_items', op: '$gt', value: 5 },
    });
  });

  it('reads {} as an empty AND (no condition)', () => {
    expect(where({})).toEqual({ kind: 'and', children: [] });
  });

  it('reads $regex with and without $options', () => {
    expect(where({ name: { $regex: '^a' } })).toEqual({ kind: 'cmp', field: 'name', op: '$regex', value: '^a', caseInsensitive: false });
    expect(where({ name: { $regex: '^a', $options: 'i' } })).toMatchObject({ caseInsensitive: true });
    expect(where({ name: { $options: '', $regex: '^a' } })).toMatchObject({ caseInsensitive: false });
  });

  it.each([
    ['not JSON', '{city:1}'],
    ['truncated', '{"city":'],
    ['an array', '[]'],
    ['a number', '1'],
    ['a string', '"x"'],
    ['null', 'null'],
  ])('refuses a where that is %s', (_label, raw) => {
    expectQueryError(() => parseWhere(products, raw), 'where');
  });

  it('refuses a where longer than 8192 characters', () => {
    expectQueryError(() => parseWhere(products, `{"city":"${'a'.repeat(8200)}"}`), 'where', /8192/);
  });

  it.each([
    [{ $and: [] }, 'where.$and', /non-empty array/],
    [{ $or: {} }, 'where.$or', /non-empty array/],
    [{ $or: [{ city: 'a' }, 1] }, 'where.$or[1]', /filter object/],
    [{ $or: [{ city: 'a' }, {}] }, 'where.$or[1]', /empty filter/],
    [{ $not: [] }, 'where.$not', /filter object/],
    [{ $not: {} }, 'where.$not', /empty filter/],
    [{ city: {} }, 'where.city', /empty operator/],
    [{ city: ['a'] }, 'where.city', /array/],
    [{ city: { street: 'x' } }, 'where.city.street', /nested documents/],
    [{ city: { $not: 'x' } }, 'where.city.$not', /operator object/],
    [{ city: { $not: {} } }, 'where.city.$not', /empty operator/],
    [{ $or: [{ city: 'a' }, { city: { $gt: 1 } }] }, 'where.$or[1].city.$gt', /string/],
  ])('refuses malformed structure %j', (value, field, message) => {
    expectQueryError(() => where(value), field, message);
  });

  it.each([
    [{ city: { $options: 'i' } }, 'where.city.$options', /next to \$regex/],
    [{ city: { $regex: 'a', $options: 'x' } }, 'where.city.$options', /"i"/],
    [{ city: { $regex: 'a', $options: 'im' } }, 'where.city.$options', /"i"/],
    [{ city: { $regex: 'a', $options: 1 } }, 'where.city.$options', /"i"/],
    [{ city: { $regex: 1 } }, 'where.city.$regex', /string/],
    [{ city: { $regex: '(' } }, 'where.city.$regex', /RE2/],
  ])('checks $regex and $options: %j', (value, field, message) => {
    expectQueryError(() => where(value), field, message);
  });
});

describe('parseWhere: fields', () => {
  it.each([
    [products, 'nope'],
    [products, 'description'],
    [products, 'deleted_at'],
    [products, 'etag'],
    [users, 'email'],
    [users, 'date_of_birth'],
    [apiClients, 'public_key'],
    [apiClients, 'capabilities'],
    [apiClients, 'keys'],
    [auditLogs, 'old_values'],
  ] as const)('refuses %s.%s as unknown or non-filterable, indistinguishably', (resource, field) => {
    expectQueryError(() => parseWhere(resource, JSON.stringify({ [field]: 'x' })), `where.${field}`, /^unknown or non-filterable field$/);
  });

  it('accepts the common fields on every resource', () => {
    expect(parseWhere(auditLogs, '{"tenant_id":"t","_id":{"$in":["a"]}}')).toMatchObject({ kind: 'and' });
  });
});

const allOperators: readonly FieldOperator[] = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex'];
const ordered: readonly FieldOperator[] = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'];

const typeSamples = [
  { type: 'string', resource: products, field: 'city', sample: 'Berlin', allowed: allOperators },
  { type: 'reference', resource: bookings, field: 'product_id', sample: 'p-1', allowed: allOperators },
  { type: 'integer', resource: products, field: 'total_items', sample: 3, allowed: ordered },
  { type: 'number', resource: orders, field: 'total_amount', sample: 9.5, allowed: ordered },
  { type: 'timestamp', resource: bookings, field: 'start_time', sample: '2024-05-01T10:00:00Z', allowed: ordered },
  { type: 'boolean', resource: products, field: 'is_published', sample: true, allowed: ['$eq', '$ne', '$exists'] },
] as const;

function operand(op: FieldOperator, sample: unknown): unknown {
  if (op === '$in' || op === '$nin') return [sample];
  if (op === '$exists') return true;
  if (op === '$regex') return '^B';
  return sample;
}

function queryOperand(op: FieldOperator, sample: string | number | boolean): string {
  if (op === '$exists') return 'true';
  if (op === '$regex') return '^B';
  return String(sample);
}

describe('operators per field type', () => {
  for (const { type, resource, field, sample, allowed } of typeSamples) {
    const allowedSet: ReadonlySet<FieldOperator> = new Set(allowed);
    for (const op of allOperators) {
      const raw = JSON.stringify({ [field]: { [op]: operand(op, sample) } });
      const query = { [`${field}__${op.slice(1)}`]: queryOperand(op, sample) };
      if (op === '$eq') continue;
      if (allowedSet.has(op)) {
        it(`${type}: ${op} is allowed in where and as a query parameter`, () => {
          expect(parseWhere(resource, raw)).toMatchObject({ kind: 'cmp', field, op });
          expect(parseQueryFilters(resource, query, reserved)).toMatchObject([{ kind: 'cmp', field, op }]);
        });
      } else {
        it(`${type}: ${op} is refused`, () => {
          expectQueryError(() => parseWhere(resource, raw), `where.${field}.${op}`, /not allowed on a/);
          expectQueryError(() => parseQueryFilters(resource, query, reserved), `${field}__${op.slice(1)}`, /not allowed on a/);
        });
      }
    }
  }

  it('$eq (and plain values) work on every filterable type', () => {
    for (const { resource, field, sample } of typeSamples) {
      expect(parseWhere(resource, JSON.stringify({ [field]: sample }))).toMatchObject({ op: '$eq' });
      expect(parseWhere(resource, JSON.stringify({ [field]: { $eq: sample } }))).toMatchObject({ op: '$eq' });
    }
  });
});

describe('parseWhere: values', () => {
  it.each([
    [{ total_items: 1.5 }, 'where.total_items', /integer from/],
    [{ total_items: 2 ** 53 }, 'where.total_items', /integer from/],
    [{ total_items: 2 ** 31 }, 'where.total_items', /from -2147483648 to 2147483647/],
    [{ total_items: { $lt: -(2 ** 31) - 1 } }, 'where.total_items.$lt', /from -2147483648 to 2147483647/],
    [{ total_items: { $in: [1, 99_999_999_999] } }, 'where.total_items.$in[1]', /integer from/],
    [{ total_items: '5' }, 'where.total_items', /integer from/],
    [{ total_items: true }, 'where.total_items', /integer from/],
    [{ is_published: 'true' }, 'where.is_published', /true or false/],
    [{ is_published: 1 }, 'where.is_published', /true or false/],
    [{ city: 5 }, 'where.city', /string/],
    [{ city: { $eq: ['a'] } }, 'where.city.$eq', /string/],
    [{ city: 'x'.repeat(1001) }, 'where.city', /1000/],
    [{ total_items: { $gt: null } }, 'where.total_items.$gt', /integer/],
    [{ total_items: { $in: 1 } }, 'where.total_items.$in', /array/],
    [{ total_items: { $in: [1, 'two'] } }, 'where.total_items.$in[1]', /integer/],
    [{ total_items: { $nin: [null] } }, 'where.total_items.$nin[0]', /integer/],
    [{ city: { $exists: 'yes' } }, 'where.city.$exists', /true or false/],
    [{ city: { $exists: 1 } }, 'where.city.$exists', /true or false/],
  ])('refuses %j', (value, field, message) => {
    expectQueryError(() => where(value), field, message);
  });

  it('refuses non-finite numbers written as huge literals', () => {
    expectQueryError(() => parseWhere(orders, '{"total_amount":1e400}'), 'where.total_amount', /finite/);
    expectQueryError(() => parseWhere(orders, '{"total_amount":{"$lt":-1e999}}'), 'where.total_amount.$lt', /finite/);
  });

  it('accepts up to 100 $in items and refuses 101', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(where({ total_items: { $in: items(100) } })).toMatchObject({ op: '$in' });
    expectQueryError(() => where({ total_items: { $in: items(101) } }), 'where.total_items.$in', /100 items/);
  });

  it.each([
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-01T00:00:00.5Z', '2024-01-01T00:00:00.500Z'],
    ['2024-01-01T00:00:00.123456789Z', '2024-01-01T00:00:00.123Z'],
    ['2024-01-01T05:30:00+05:30', '2024-01-01T00:00:00.000Z'],
    ['2023-12-31T19:00:00-05:00', '2024-01-01T00:00:00.000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['1000-01-01T00:00:00Z', '1000-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('normalises the timestamp %s', (text, iso) => {
    expect(where({ created_at: { $gte: text } })).toEqual({ kind: 'cmp', field: 'created_at', op: '$gte', value: iso });
  });

  it.each([
    '2024-01-01',
    '2024-01-01T00:00Z',
    '2024-01-01T00:00:00',
    '2024-01-01 00:00:00Z',
    '2024-01-01t00:00:00z',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:60Z',
    '2024-01-01T00:00:00+24:00',
    '0999-12-31T23:59:59Z',
    '9999-12-31T23:00:00-02:00',
    '+012024-01-01T00:00:00Z',
    'Mon, 01 Jan 2024 00:00:00 GMT',
    'now',
  ])('refuses the timestamp %s', (text) => {
    expectQueryError(() => where({ created_at: text }), 'where.created_at', /ISO 8601/);
  });

  it('refuses a timestamp given as epoch milliseconds', () => {
    expectQueryError(() => where({ created_at: 1704067200000 }), 'where.created_at', /ISO 8601/);
  });
});

describe('parseWhere: limits', () => {
  const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { $and: [nested(depth - 1, leaf)] });

  it('accepts 8 levels of logical nesting and refuses 9', () => {
    expect(where(nested(8, { city: 'a' }))).toMatchObject({ kind: 'and' });
    const path = `where${'.$and[0]'.repeat(8)}.$and`;
    expectQueryError(() => where(nested(9, { city: 'a' })), path, /deeper than 8/);
  });

  it('counts field-level $not towards the depth', () => {
    expect(where(nested(7, { city: { $not: { $eq: 'a' } } }))).toBeTruthy();
    expectQueryError(() => where(nested(8, { city: { $not: { $eq: 'a' } } })), `where${'.$and[0]'.repeat(8)}.city.$not`, /deeper/);
  });

  it('accepts 100 conditions and refuses the 101st', () => {
    const conditions = (n: number) => ({ $or: Array.from({ length: n }, (_, i) => ({ total_items: i })) });
    expect(where(conditions(100))).toMatchObject({ kind: 'or' });
    expectQueryError(() => where(conditions(101)), 'where.$or[100].total_items', /100 conditions/);
  });
});

describe('parseQueryFilters', () => {
  it('reads <field>=<v> as $eq, converted by type', () => {
    expect(filters({ city: 'Berlin', total_items: '3', is_published: 'false', created_at: '2024-01-01T01:00:00+01:00' })).toEqual([
      { kind: 'cmp', field: 'city', op: '$eq', value: 'Berlin' },
      { kind: 'cmp', field: 'total_items', op: '$eq', value: 3 },
      { kind: 'cmp', field: 'is_published', op: '$eq', value: false },
      { kind: 'cmp', field: 'created_at', op: '$eq', value: '2024-01-01T00:00:00.000Z' },
    ]);
  });

  it('reads every operator suffix', () => {
    expect(
      filters({
        total_items__gt: '1',
        total_items__gte: '2',
        total_items__lt: '9',
        total_items__lte: '8',
        city__ne: 'x',
        city__in: 'a,b',
        zip_code__nin: '1,2',
        country__exists: 'false',
        name__regex: '^a.*',
      }),
    ).toEqual([
      { kind: 'cmp', field: 'total_items', op: '$gt', value: 1 },
      { kind: 'cmp', field: 'total_items', op: '$gte', value: 2 },
      { kind: 'cmp', field: 'total_items', op: '$lt', value: 9 },
      { kind: 'cmp', field: 'total_items', op: '$lte', value: 8 },
      { kind: 'cmp', field: 'city', op: '$ne', value: 'x' },
      { kind: 'cmp', field: 'city', op: '$in', value: ['a', 'b'] },
      { kind: 'cmp', field: 'zip_code', op: '$nin', value: ['1', '2'] },
      { kind: 'cmp', field: 'country', op: '$exists', value: false },
      { kind: 'cmp', field: 'name', op: '$regex', value: '^a.*', caseInsensitive: false },
    ]);
  });

  it('converts list items by type', () => {
    expect(filters({ total_items__in: '1,-2,3' })).toEqual([{ kind: 'cmp', field: 'total_items', op: '$in', value: [1, -2, 3] }]);
    expectQueryError(() => filters({ total_items__in: '1,x' }), 'total_items__in', /integer/);
  });

  it('keeps strings as they are, empty string included', () => {
    expect(filters({ city: '' })).toEqual([{ kind: 'cmp', field: 'city', op: '$eq', value: '' }]);
    expect(filters({ city: ' 5 ' })).toEqual([{ kind: 'cmp', field: 'city', op: '$eq', value: ' 5 ' }]);
  });

  // The range of an integer column on PostgreSQL (int4), which refuses to compare a larger literal.
  it.each(['5', '-3', '0', '2147483647', '-2147483648'])('accepts the integer %s', (text) => {
    expect(filters({ total_items: text })).toEqual([{ kind: 'cmp', field: 'total_items', op: '$eq', value: Number(text) }]);
  });

  it.each(['', '5.0', '1e3', ' 5', '5 ', '+5', '0x10', '2147483648', '-2147483649', '9007199254740991', '9007199254740992', '1'.repeat(400), 'NaN', 'Infinity'])('refuses the integer %j', (text) => {
    expectQueryError(() => filters({ total_items: text }), 'total_items', /an integer from -2147483648 to 2147483647/);
  });

  it.each([
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['10', 10],
    ['1e3', 1000],
    ['2.5E-2', 0.025],
  ])('accepts the number %s', (text, value) => {
    expect(filters({ total_amount: text }, orders)).toEqual([{ kind: 'cmp', field: 'total_amount', op: '$eq', value }]);
  });

  it.each(['', '.5', '5.', '+1', '01.5', '1,5', 'NaN', 'Infinity', '-Infinity', '1e400', '0x1A', '1_000'])('refuses the number %j', (text) => {
    expectQueryError(() => filters({ total_amount: text }, orders), 'total_amount', /finite decimal/);
  });

  it.each(['', 'TRUE', 'True', '1', '0', 'yes', 'on'])('refuses the boolean %j', (text) => {
    expectQueryError(() => filters({ is_published: text }), 'is_published', /true or false/);
  });

  it.each(['2024-01-01', 'yesterday', '1704067200000'])('refuses the timestamp %j', (text) => {
    expectQueryError(() => filters({ created_at__gte: text }), 'created_at__gte', /ISO 8601/);
  });

  it.each([
    [{ city__in: '' }, 'city__in', /empty list item/],
    [{ city__in: 'a,,b' }, 'city__in', /empty list item/],
    [{ city__nin: 'a,' }, 'city__nin', /empty list item/],
    [{ city__in: Array.from({ length: 101 }, (_, i) => `c${i}`).join(',') }, 'city__in', /100 items/],
    [{ city__exists: 'yes' }, 'city__exists', /true or false/],
    [{ city__exists: '1' }, 'city__exists', /true or false/],
    [{ city__regex: '(a)\\1' }, 'city__regex', /backreferences/],
    [{ city__regex: '\\bword\\b' }, 'city__regex', /unsupported escape/],
    [{ city__regex: '^*' }, 'city__regex', /anchor \(\^ or \$\) cannot be repeated/],
    [{ city__regex: 'a|$+' }, 'city__regex', /anchor \(\^ or \$\) cannot be repeated/],
    [{ city__regex: 'x^{2}' }, 'city__regex', /anchor \(\^ or \$\) cannot be repeated/],
    [{ city__eq: 'x' }, 'city__eq', /unknown query parameter/],
    [{ city__like: 'x' }, 'city__like', /unknown query parameter/],
    [{ nope: 'x' }, 'nope', /unknown query parameter/],
    [{ __gt: 'x' }, '__gt', /unknown query parameter/],
    [{ description: 'x' }, 'description', /unknown query parameter/],
    [{ description__ne: 'x' }, 'description__ne', /unknown query parameter/],
    [{ city: ['a', 'b'] }, 'city', /more than once/],
  ])('refuses %j', (query, field, message) => {
    expectQueryError(() => filters(query), field, message);
  });

  it('accepts 100 in-list items', () => {
    const list = Array.from({ length: 100 }, (_, i) => `c${i}`).join(',');
    expect(filters({ city__in: list })[0]).toMatchObject({ op: '$in' });
  });

  it('skips reserved names and undefined values', () => {
    expect(parseQueryFilters(products, { format: 'csv', city: undefined, page: '2' }, new Set(['format']))).toEqual([]);
  });

  it('skips the standard list parameters even if the caller forgot them', () => {
    expect(parseQueryFilters(products, { where: '{}', sort: 'x', fields: 'y', page: 'z', per_page: 'w' }, new Set())).toEqual([]);
  });

  it('refuses filters on sensitive and write-only fields like unknown ones', () => {
    expectQueryError(() => filters({ email: 'a@b.c' }, users), 'email', /unknown query parameter/);
    expectQueryError(() => filters({ email__regex: '.' }, users), 'email__regex', /unknown query parameter/);
    expectQueryError(() => filters({ public_key__exists: 'true' }, apiClients), 'public_key__exists', /unknown query parameter/);
  });
});

describe('parseListQuery', () => {
  it('has documented defaults', () => {
    expect(parseListQuery(products, {})).toEqual({
      filter: null,
      sort: [
        { field: 'created_at', direction: 'desc' },
        { field: '_id', direction: 'desc' },
      ],
      fields: null,
      page: 1,
      perPage: 25,
    });
  });

  it('combines where and query filters with AND', () => {
    expect(parseListQuery(products, { where: '{"city":"a"}', status: 'active' }).filter).toEqual({
      kind: 'and',
      children: [
        { kind: 'cmp', field: 'city', op: '$eq', value: 'a' },
        { kind: 'cmp', field: 'status', op: '$eq', value: 'active' },
      ],
    });
    expect(parseListQuery(products, { where: '{"city":"a"}' }).filter).toEqual({ kind: 'cmp', field: 'city', op: '$eq', value: 'a' });
    expect(parseListQuery(products, { where: '{}' }).filter).toBeNull();
  });

  it('bounds the conditions of where and query filters together', () => {
    const whereText = JSON.stringify({ $or: Array.from({ length: 95 }, (_, i) => ({ total_items: i })) });
    const params = { city: 'a', name: 'b', zip_code: 'c', country: 'd', status: 'e' };
    expect(parseListQuery(products, { where: whereText, ...params }).filter).toMatchObject({ kind: 'and' });
    expectQueryError(() => parseListQuery(products, { where: whereText, ...params, address: 'f' }), 'where', /100 conditions/);
  });

  it('reads page and per_page', () => {
    expect(parseListQuery(products, { page: '3', per_page: '100' })).toMatchObject({ page: 3, perPage: 100 });
    expect(parseListQuery(products, { page: '1000000', per_page: '1' })).toMatchObject({ page: 1_000_000, perPage: 1 });
    expect(parseListQuery(products, { page: '007' })).toMatchObject({ page: 7 });
  });

  it.each([
    ['page', '0', /at least 1/],
    ['page', '-1', /positive integer/],
    ['page', '1.5', /positive integer/],
    ['page', '1e2', /positive integer/],
    ['page', ' 1', /positive integer/],
    ['page', 'abc', /positive integer/],
    ['page', '1000001', /at most 1000000/],
    ['page', '9'.repeat(400), /at most/],
    ['per_page', '0', /at least 1/],
    ['per_page', '101', new RegExp(`at most ${MAX_PER_PAGE}`)],
    ['per_page', '25.0', /positive integer/],
  ])('refuses %s=%s', (name, value, message) => {
    expectQueryError(() => parseListQuery(products, { [name]: value }), name, message);
  });

  it('reads sort keys and appends the _id tie-breaker', () => {
    expect(parseListQuery(products, { sort: 'city,-total_items' }).sort).toEqual([
      { field: 'city', direction: 'asc' },
      { field: 'total_items', direction: 'desc' },
      { field: '_id', direction: 'desc' },
    ]);
    expect(parseListQuery(products, { sort: '-_id,city' }).sort).toEqual([
      { field: '_id', direction: 'desc' },
      { field: 'city', direction: 'asc' },
    ]);
    expect(parseListQuery(products, { sort: 'created_at' }).sort).toEqual([
      { field: 'created_at', direction: 'asc' },
      { field: '_id', direction: 'asc' },
    ]);
  });

  it('accepts 5 sort keys (plus the tie-breaker) and refuses 6', () => {
    expect(parseListQuery(products, { sort: 'name,city,zip_code,-status,total_items' }).sort).toHaveLength(6);
    expectQueryError(() => parseListQuery(products, { sort: 'name,city,zip_code,status,total_items,created_at' }), 'sort', /at most 5/);
  });

  it.each([
    ['address', /non-sortable/],
    ['nope', /non-sortable/],
    ['city,-city', /twice/],
    ['city,', /empty sort key/],
    ['-', /empty sort key/],
    ['--city', /non-sortable/],
    ['+city', /non-sortable/],
    [' city', /non-sortable/],
    ['__proto__', /non-sortable/],
  ])('refuses sort=%s', (sort, message) => {
    expectQueryError(() => parseListQuery(products, { sort }), 'sort', message);
  });

  it('refuses sorting on sensitive fields', () => {
    expectQueryError(() => parseListQuery(users, { sort: 'email' }), 'sort', /non-sortable/);
  });

  it('reads fields with _id first, once', () => {
    expect(parseListQuery(products, { fields: 'name,city' }).fields).toEqual(['_id', 'name', 'city']);
    expect(parseListQuery(products, { fields: 'city,_id,city' }).fields).toEqual(['_id', 'city']);
    expect(parseListQuery(users, { fields: 'email,date_of_birth' }).fields).toEqual(['_id', 'email', 'date_of_birth']);
    expect(parseListQuery(products, { fields: 'description' }).fields).toEqual(['_id', 'description']);
  });

  it.each([
    ['nope', /unknown field/],
    ['name,,city', /empty field name/],
    ['name,', /empty field name/],
    ['constructor', /unknown field/],
    [Array.from({ length: 50 }, () => 'name').join(','), /more names/],
  ])('refuses fields=%s', (fields, message) => {
    expectQueryError(() => parseListQuery(products, { fields }), 'fields', message);
  });

  it('refuses write-only fields in fields', () => {
    expectQueryError(() => parseListQuery(apiClients, { fields: 'public_key' }), 'fields', /unknown field/);
  });

  it.each(['where', 'page', 'per_page', 'sort', 'fields'])('refuses a repeated or empty %s', (name) => {
    expectQueryError(() => parseListQuery(products, { [name]: ['1', '2'] }), name, /more than once/);
    expectQueryError(() => parseListQuery(products, { [name]: '' }), name, /must not be empty/);
  });

  it('lets the caller reserve extra parameters', () => {
    expect(parseListQuery(auditLogs, { format: 'csv' }, { extraReserved: ['format'] }).filter).toBeNull();
    expectQueryError(() => parseListQuery(auditLogs, { format: 'csv' }), 'format', /unknown query parameter/);
  });

  it('reports query-filter errors by parameter name', () => {
    expectQueryError(() => parseListQuery(products, { total_items__gt: 'many' }), 'total_items__gt', /integer/);
  });
});
