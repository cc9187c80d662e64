/**
 * The compiled filters and sort run on real SQLite and PostgreSQL databases and must
 * select (and order) exactly the same rows, with Mongo semantics for NULL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, DialectName } from '../../../src/db/dialect.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { compileFilter, compileSort } from '../../../src/query/compile-filter.js';
import { parseListQuery } from '../../../src/query/parse-list-query.js';
import { parseWhere } from '../../../src/query/parse-where.js';
import { getResource } from '../../../src/registry/index.js';
import type { FieldType } from '../../../src/registry/types.js';
import { freshPostgresUrl } from '../../support/databases.js';

const products = getResource('products');
const columns: Readonly<Record<string, FieldType>> = {
  _id: 'string',
  city: 'string',
  name: 'string',
  total_items: 'integer',
  is_published: 'boolean',
  created_at: 'timestamp',
};

const rows = [
  { _id: 'a', city: 'Berlin', name: 'Alpha', total_items: 1, is_published: true, created_at: '2024-01-01T00:00:00.000Z' },
  { _id: 'b', city: 'Paris', name: 'beta', total_items: 5, is_published: false, created_at: '2024-06-01T00:00:00.000Z' },
  { _id: 'c', city: null, name: null, total_items: null, is_published: null, created_at: null },
  { _id: 'd', city: 'berlin', name: 'Gamma', total_items: 10, is_published: true, created_at: '2023-01-01T00:00:00.000Z' },
] as const;

async function seed(database: Database): Promise<void> {
  const { db, dialect } = database;
  let table = db.schema.createTable('products');
  for (const [name, type] of Object.entries(columns)) table = table.addColumn(name, sql.raw(dialect.columnType(type)));
  await table.execute();
  for (const row of rows) {
    const values = Object.fromEntries(Object.entries(row).map(([name, value]) => [name, dialect.toDb(columns[name] ?? 'string', value)]));
    await db.insertInto('products').values(values).execute();
  }
}

// Non-ASCII case folding under `$options: "i"` follows the PostgreSQL locale (ASCII only
// in the C locale) while RE2 folds Unicode (`ſ` ~ `s`, `É` ~ `é`): such subjects are left out.
const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const subjects = [punctuation, 'abc', 'ABC', 'a\nb', 'a.b', 'x1y', 'é', 'tab\there', 'a{b}', 'a-b', 'a]b', 'under_score', '١٢٣', 'naïve', 'trailing\n', '', ' ', '\u000b', '\u00a0'];
const patterns = [
  ...['^a', 'a.b', 'a\\.b', '^a$', 'b$', '^.$', '^$', 'trailing$', '.*', 'a*?b', 'x{0}', 'a{1,2}', 'a{2,}?', '(?:ab|x)\\d?', 'a|', '(a)(b)?', '()'],
  ...['\\d', '\\D', '\\w+$', '\\W', '\\s', '\\S', '^\\S+$', '\\t', '\\v', '\\{', '\\-', '\\^', '\\$', 'é'],
  ...['[a-c]+', '[^a-c]', '[\\]]', '[-a]', '[a-]', '[\\t]', '[\\v]', '[.]', '^[a-z]+$', '[^\\n]', '[\\^]'],
  // Every escaped ASCII punctuation character, alone and in brackets.
  ...[...punctuation].flatMap((char) => [`\\${char}`, `[\\${char}]`]),
];

async function seedSubjects(database: Database): Promise<void> {
  await database.db.schema.createTable('regex_subjects').addColumn('_id', 'text').addColumn('city', 'text').execute();
  for (const [index, city] of subjects.entries()) {
    await database.db
      .insertInto('regex_subjects')
      .values({ _id: String(index).padStart(2, '0'), city })
      .execute();
  }
}

const databases: Partial<Record<DialectName, Database>> = {};

beforeAll(async () => {
  databases.sqlite = openSqlite(':memory:');
  databases.postgres = openPostgres({ connectionString: await freshPostgresUrl(), poolSize: 2, statementTimeoutMs: 5000 });
  for (const database of [databases.sqlite, databases.postgres]) {
    await seed(database);
    await seedSubjects(database);
  }
});

afterAll(async () => {
  await databases.sqlite?.close();
  await databases.postgres?.close();
});

/** `_id`s of the rows a list query selects, in the order it returns them. */
async function ids(dialectName: DialectName, query: Record<string, string>): Promise<string[]> {
  const database = databases[dialectName];
  if (!database) throw new Error(`${dialectName} is not open`);
  const parsed = parseListQuery(products, query);
  let select = database.db.selectFrom('products').select('_id');
  if (parsed.filter) select = select.where(compileFilter(parsed.filter, products, database.dialect));
  for (const item of compileSort(parsed.sort, products)) select = select.orderBy(item);
  const result = await select.execute();
  return result.map((row) => String(row['_id']));
}

const cases: readonly [where: unknown, expected: readonly string[]][] = [
  [{ city: 'Berlin' }, ['a']],
  [{ city: null }, ['c']],
  [{ city: { $ne: 'Berlin' } }, ['b', 'c', 'd']],
  [{ city: { $ne: null } }, ['a', 'b', 'd']],
  [{ total_items: { $gt: 1 } }, ['b', 'd']],
  [{ total_items: { $lte: 5 } }, ['a', 'b']],
  [{ city: { $in: ['Berlin', 'Paris'] } }, ['a', 'b']],
  [{ city: { $in: [] } }, []],
  [{ city: { $nin: ['Berlin'] } }, ['b', 'c', 'd']],
  [{ city: { $nin: [] } }, ['a', 'b', 'c', 'd']],
  [{ city: { $exists: false } }, ['c']],
  [{ city: { $exists: true } }, ['a', 'b', 'd']],
  [{ name: { $regex: '^[A-Z]' } }, ['a', 'd']],
  [{ name: { $regex: '^B', $options: 'i' } }, ['b']],
  [{ city: { $regex: '^berlin$', $options: 'i' } }, ['a', 'd']],
  [{ is_published: true }, ['a', 'd']],
  [{ is_published: { $ne: true } }, ['b', 'c']],
  [{ created_at: { $gte: '2024-01-01T01:00:00+01:00' } }, ['a', 'b']],
  [{ created_at: { $lt: '2024-01-01T00:00:00Z' } }, ['d']],
  [{ $not: { city: 'Berlin' } }, ['b', 'c', 'd']],
  [{ $not: { total_items: { $gt: 1 } } }, ['a', 'c']],
  [{ city: { $not: { $regex: 'erl' } } }, ['b', 'c']],
  [{ $or: [{ city: 'Paris' }, { total_items: { $gte: 10 } }] }, ['b', 'd']],
  [{ $not: { $or: [{ city: 'Paris' }, { city: null }] } }, ['a', 'd']],
  [{ $not: { $not: { city: 'Berlin' } } }, ['a']],
  [{ $and: [{ is_published: true }, { $not: { name: { $regex: '^A' } } }] }, ['d']],
];

describe.each(['sqlite', 'postgres'] as const)('filter semantics on %s', (dialectName) => {
  it.each(cases)('%j', async (where, expected) => {
    expect(await ids(dialectName, { where: JSON.stringify(where), sort: '_id' })).toEqual(expected);
  });

  it('sorts ascending with NULLs first and descending with NULLs last', async () => {
    expect(await ids(dialectName, { sort: 'total_items' })).toEqual(['c', 'a', 'b', 'd']);
    expect(await ids(dialectName, { sort: '-total_items' })).toEqual(['d', 'b', 'a', 'c']);
    expect(await ids(dialectName, {})).toEqual(['b', 'a', 'd', 'c']);
  });

  it('sorts strings by code point (C collation)', async () => {
    expect(await ids(dialectName, { sort: 'city' })).toEqual(['c', 'a', 'b', 'd']);
  });
});

describe('$regex selects the same rows on both databases', () => {
  async function matches(dialectName: DialectName, pattern: string, options: string): Promise<string[]> {
    const database = databases[dialectName];
    if (!database) throw new Error(`${dialectName} is not open`);
    const filter = parseWhere(products, JSON.stringify({ city: { $regex: pattern, $options: options } }));
    const rows = await database.db
      .selectFrom('regex_subjects')
      .select('_id')
      .where(compileFilter(filter, products, database.dialect))
      .orderBy('_id')
      .execute();
    return rows.map((row) => subjects[Number(row['_id'])] ?? '?');
  }

  it.each(patterns)('%j', async (pattern) => {
    for (const options of ['', 'i']) {
      const onSqlite = await matches('sqlite', pattern, options);
      expect({ options, rows: await matches('postgres', pattern, options) }).toEqual({ options, rows: onSqlite });
    }
  });

  it('. matches a newline and \\d only ASCII digits, on both', async () => {
    for (const dialectName of ['sqlite', 'postgres'] as const) {
      expect(await matches(dialectName, '^a.b$', '')).toEqual(['a\nb', 'a.b', 'a-b', 'a]b']);
      expect(await matches(dialectName, '\\d', '')).toEqual(['x1y']);
      expect(await matches(dialectName, '^[a-c]+$', 'i')).toEqual(['abc', 'ABC']);
    }
  });
});
