import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../../src/db/dialect.js';
import { compileFilter, compileSort } from '../../../src/query/compile-filter.js';
import type { FilterNode } from '../../../src/query/filter-ast.js';
import { parseListQuery } from '../../../src/query/parse-list-query.js';
import { parseWhere } from '../../../src/query/parse-where.js';
import { getResource } from '../../../src/registry/index.js';
import { compileSelect, compileTargets } from './compile-only-db.js';

const products = getResource('products');
const orders = getResource('orders');

type Golden = readonly [sql: string, parameters: readonly unknown[]];

interface Case {
  readonly name: string;
  readonly where: unknown;
  readonly sqlite: Golden;
  readonly postgres: Golden;
}

const head = 'select * from "products" where ';

const cases: readonly Case[] = [
  {
    name: 'scalar equality',
    where: { city: 'Berlin' },
    sqlite: [`${head}"city" = ?`, ['Berlin']],
    postgres: [`${head}"city" = $1`, ['Berlin']],
  },
  {
    name: '$eq null is IS NULL',
    where: { country: null },
    sqlite: [`${head}"country" is null`, []],
    postgres: [`${head}"country" is null`, []],
  },
  {
    name: 'explicit $eq',
    where: { total_items: { $eq: 3 } },
    sqlite: [`${head}"total_items" = ?`, [3]],
    postgres: [`${head}"total_items" = $1`, [3]],
  },
  {
    name: '$ne also matches NULL',
    where: { city: { $ne: 'Berlin' } },
    sqlite: [`${head}("city" is null or "city" <> ?)`, ['Berlin']],
    postgres: [`${head}("city" is null or "city" <> $1)`, ['Berlin']],
  },
  {
    name: '$ne null is IS NOT NULL',
    where: { country: { $ne: null } },
    sqlite: [`${head}"country" is not null`, []],
    postgres: [`${head}"country" is not null`, []],
  },
  {
    name: 'range operators combine with AND',
    where: { total_items: { $gt: 1, $gte: 2, $lt: 9, $lte: 8 } },
    sqlite: [`${head}("total_items" > ? and "total_items" >= ? and "total_items" < ? and "total_items" <= ?)`, [1, 2, 9, 8]],
    postgres: [`${head}("total_items" > $1 and "total_items" >= $2 and "total_items" < $3 and "total_items" <= $4)`, [1, 2, 9, 8]],
  },
  {
    name: '$in',
    where: { city: { $in: ['Berlin', 'Paris'] } },
    sqlite: [`${head}"city" in (?, ?)`, ['Berlin', 'Paris']],
    postgres: [`${head}"city" in ($1, $2)`, ['Berlin', 'Paris']],
  },
  {
    name: 'empty $in matches nothing',
    where: { city: { $in: [] } },
    sqlite: [`${head}1 = 0`, []],
    postgres: [`${head}1 = 0`, []],
  },
  {
    name: '$nin also matches NULL',
    where: { total_items: { $nin: [1, 2, 3] } },
    sqlite: [`${head}("total_items" is null or "total_items" not in (?, ?, ?))`, [1, 2, 3]],
    postgres: [`${head}("total_items" is null or "total_items" not in ($1, $2, $3))`, [1, 2, 3]],
  },
  {
    name: 'empty $nin matches everything',
    where: { city: { $nin: [] } },
    sqlite: [`${head}1 = 1`, []],
    postgres: [`${head}1 = 1`, []],
  },
  {
    name: '$exists true',
    where: { country: { $exists: true } },
    sqlite: [`${head}"country" is not null`, []],
    postgres: [`${head}"country" is not null`, []],
  },
  {
    name: '$exists false',
    where: { country: { $exists: false } },
    sqlite: [`${head}"country" is null`, []],
    postgres: [`${head}"country" is null`, []],
  },
  {
    name: '$regex, case-sensitive',
    where: { name: { $regex: '^Be.*n$' } },
    sqlite: [`${head}re2_match("name", ?, ?)`, ['(?s)^Be.*n$', '']],
    postgres: [`${head}"name" ~ $1`, ['(?s)^Be.*n$']],
  },
  {
    name: '$regex with $options "" is case-sensitive',
    where: { name: { $regex: 'x', $options: '' } },
    sqlite: [`${head}re2_match("name", ?, ?)`, ['(?s)x', '']],
    postgres: [`${head}"name" ~ $1`, ['(?s)x']],
  },
  {
    name: '$regex with $options i',
    where: { name: { $options: 'i', $regex: '^be' } },
    sqlite: [`${head}re2_match("name", ?, ?)`, ['(?s)^be', 'i']],
    postgres: [`${head}("name" collate "default") ~* $1`, ['(?s)^be']],
  },
  {
    name: '$regex classes are spelled out as ASCII, brackets kept',
    where: { zip_code: { $regex: '^\\d{5}\\s?[\\-a-z]\\W$' } },
    sqlite: [`${head}re2_match("zip_code", ?, ?)`, ['(?s)^[0-9]{5}[\\t\\n\\f\\r ]?[\\-a-z][^0-9A-Za-z_]$', '']],
    postgres: [`${head}"zip_code" ~ $1`, ['(?s)^[0-9]{5}[\\t\\n\\f\\r ]?[\\-a-z][^0-9A-Za-z_]$']],
  },
  {
    name: 'boolean equality: 1/0 on SQLite, true/false on PostgreSQL',
    where: { is_published: true },
    sqlite: [`${head}"is_published" = ?`, [1]],
    postgres: [`${head}"is_published" = $1`, [true]],
  },
  {
    name: 'boolean $ne',
    where: { is_published: { $ne: false } },
    sqlite: [`${head}("is_published" is null or "is_published" <> ?)`, [0]],
    postgres: [`${head}("is_published" is null or "is_published" <> $1)`, [false]],
  },
  {
    name: 'timestamps are normalised to UTC ISO strings',
    where: { created_at: { $gte: '2024-01-01T01:00:00+01:00', $lt: '2024-02-01T00:00:00.5Z' } },
    sqlite: [`${head}("created_at" >= ? and "created_at" < ?)`, ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.500Z']],
    postgres: [`${head}("created_at" >= $1 and "created_at" < $2)`, ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.500Z']],
  },
  {
    name: 'several fields combine with AND',
    where: { city: 'Berlin', status: { $in: ['active'] } },
    sqlite: [`${head}("city" = ? and "status" in (?))`, ['Berlin', 'active']],
    postgres: [`${head}("city" = $1 and "status" in ($2))`, ['Berlin', 'active']],
  },
  {
    name: 'nested $or / $and / $not',
    where: { $or: [{ city: 'A' }, { $and: [{ total_items: { $gt: 1 } }, { $not: { status: 'retired' } }] }] },
    sqlite: [`${head}("city" = ? or ("total_items" > ? and (("status" = ?) is not true)))`, ['A', 1, 'retired']],
    postgres: [`${head}("city" = $1 or ("total_items" > $2 and (("status" = $3) is not true)))`, ['A', 1, 'retired']],
  },
  {
    name: 'top-level $not of several conditions',
    where: { $not: { city: 'A', zip_code: { $regex: '^1' } } },
    sqlite: [`${head}((("city" = ? and re2_match("zip_code", ?, ?))) is not true)`, ['A', '(?s)^1', '']],
    postgres: [`${head}((("city" = $1 and "zip_code" ~ $2)) is not true)`, ['A', '(?s)^1']],
  },
  {
    name: 'field-level $not',
    where: { total_items: { $not: { $gt: 5 } } },
    sqlite: [`${head}(("total_items" > ?) is not true)`, [5]],
    postgres: [`${head}(("total_items" > $1) is not true)`, [5]],
  },
  {
    name: 'field-level $not next to another operator',
    where: { city: { $ne: 'B', $not: { $regex: 'x', $options: 'i' } } },
    sqlite: [`${head}(("city" is null or "city" <> ?) and ((re2_match("city", ?, ?)) is not true))`, ['B', '(?s)x', 'i']],
    postgres: [`${head}(("city" is null or "city" <> $1) and ((("city" collate "default") ~* $2) is not true))`, ['B', '(?s)x']],
  },
  {
    name: 'empty where matches everything',
    where: {},
    sqlite: [`${head}1 = 1`, []],
    postgres: [`${head}1 = 1`, []],
  },
  {
    name: 'hostile-looking values stay parameters',
    where: { city: "x' or 1=1 --", name: { $regex: "'\\); drop table products; --" } },
    sqlite: [`${head}("city" = ? and re2_match("name", ?, ?))`, ["x' or 1=1 --", "(?s)'\\); drop table products; --", '']],
    postgres: [`${head}("city" = $1 and "name" ~ $2)`, ["x' or 1=1 --", "(?s)'\\); drop table products; --"]],
  },
];

const dialectNames: readonly DialectName[] = ['sqlite', 'postgres'];

describe.each(dialectNames)('golden SQL on %s', (dialectName) => {
  const { dialect } = compileTargets[dialectName];

  it.each(cases)('$name', (testCase) => {
    const filter = parseWhere(products, JSON.stringify(testCase.where));
    const compiled = compileSelect(dialectName, 'products', compileFilter(filter, products, dialect));
    expect([compiled.sql, compiled.parameters]).toEqual(testCase[dialectName]);
  });

  it('compiles empty AND / OR nodes to their identities', () => {
    const empty: FilterNode = {
      kind: 'or',
      children: [
        { kind: 'and', children: [] },
        { kind: 'or', children: [] },
      ],
    };
    expect(compileSelect(dialectName, 'products', compileFilter(empty, products, dialect)).sql).toBe(`${head}(1 = 1 or 1 = 0)`);
  });

  it('qualifies columns when asked to', () => {
    const filter = parseWhere(products, '{"city":"A"}');
    const where = compileFilter(filter, products, dialect, { qualifier: 'p' });
    const sort = compileSort([{ field: 'city', direction: 'asc' }], products, { qualifier: 'p' });
    const placeholder = dialectName === 'sqlite' ? '?' : '$1';
    expect(compileSelect(dialectName, 'products as p', where, sort).sql).toBe(`select * from "products" as "p" where "p"."city" = ${placeholder} order by "p"."city" asc nulls first`);
  });

  it('refuses a field the registry does not know (programming error, not SQL)', () => {
    const bogus: FilterNode = { kind: 'cmp', field: 'name"; drop table x; --', op: '$eq', value: 1 };
    expect(() => compileFilter(bogus, products, dialect)).toThrow(/has no column/);
    expect(() => compileSort([{ field: '__proto__', direction: 'asc' }], products)).toThrow(/has no column/);
  });

  it('numbers: floats on number fields', () => {
    const filter = parseWhere(orders, '{"total_amount":{"$gt":10.5}}');
    const compiled = compileSelect(dialectName, 'orders', compileFilter(filter, orders, dialect));
    expect(compiled.parameters).toEqual([10.5]);
  });

  describe('list query: filters, sort and null ordering', () => {
    const p1 = dialectName === 'sqlite' ? '?' : '$1';
    const p2 = dialectName === 'sqlite' ? '?' : '$2';

    it('default sort is newest first with an _id tie-breaker, NULLS LAST', () => {
      const query = parseListQuery(products, {});
      const compiled = compileSelect(dialectName, 'products', null, compileSort(query.sort, products));
      expect(compiled.sql).toBe('select * from "products" order by "created_at" desc nulls last, "_id" desc nulls last');
    });

    it('ascending keys sort NULLS FIRST, descending NULLS LAST', () => {
      const query = parseListQuery(products, { sort: 'city,-total_items' });
      const compiled = compileSelect(dialectName, 'products', null, compileSort(query.sort, products));
      expect(compiled.sql).toBe('select * from "products" order by "city" asc nulls first, "total_items" desc nulls last, "_id" desc nulls last');
    });

    it('sort keys after a filter (the availability search): unary plus on SQLite, the plain columns on PostgreSQL', () => {
      const query = parseListQuery(products, { sort: 'city,-total_items' });
      const compiled = compileSelect(dialectName, 'products', null, compileSort(query.sort, products, { key: (column) => dialect.sortKeyAfterFilter(column) }));
      const key = (name: string) => (dialectName === 'sqlite' ? `+"${name}"` : `"${name}"`);
      expect(compiled.sql).toBe(`select * from "products" order by ${key('city')} asc nulls first, ${key('total_items')} desc nulls last, ${key('_id')} desc nulls last`);
    });

    it('an ascending last key gives an ascending tie-breaker', () => {
      const query = parseListQuery(products, { sort: '-city,name' });
      const compiled = compileSelect(dialectName, 'products', null, compileSort(query.sort, products));
      expect(compiled.sql).toBe('select * from "products" order by "city" desc nulls last, "name" asc nulls first, "_id" asc nulls first');
    });

    it('where and query-parameter filters combine with AND, flattened', () => {
      const query = parseListQuery(products, {
        where: '{"city":"Berlin","total_items":{"$gte":2}}',
        is_published: 'true',
        sort: '_id',
      });
      if (!query.filter) throw new Error('expected a filter');
      const compiled = compileSelect(dialectName, 'products', compileFilter(query.filter, products, dialect), compileSort(query.sort, products));
      const p3 = dialectName === 'sqlite' ? '?' : '$3';
      expect(compiled.sql).toBe(`select * from "products" where ("city" = ${p1} and "total_items" >= ${p2} and "is_published" = ${p3}) order by "_id" asc nulls first`);
      expect(compiled.parameters).toEqual(['Berlin', 2, dialectName === 'sqlite' ? 1 : true]);
    });

    it('query-parameter operators compile like their where forms', () => {
      const query = parseListQuery(products, { city__nin: 'A,B', created_at__lt: '2024-03-01T00:00:00Z' });
      if (!query.filter) throw new Error('expected a filter');
      const compiled = compileSelect(dialectName, 'products', compileFilter(query.filter, products, dialect));
      const p3 = dialectName === 'sqlite' ? '?' : '$3';
      expect(compiled.sql).toBe(`${head}(("city" is null or "city" not in (${p1}, ${p2})) and "created_at" < ${p3})`);
      expect(compiled.parameters).toEqual(['A', 'B', '2024-03-01T00:00:00.000Z']);
    });
  });
});
