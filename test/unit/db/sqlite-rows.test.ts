import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { RowReader } from '../../../src/db/sqlite-rows.js';
import { openSqlite } from '../../../src/db/sqlite.js';

/** What better-sqlite3 itself makes of a row: the objects a RowReader must match. */
function ownRows(db: BetterSqlite3.Database, text: string, parameters: unknown[]): unknown[] {
  return db.prepare(text).all(parameters);
}

/**
 * Same keys in the same order, same values, same prototype. Compared as entries: a column
 * named `constructor` would otherwise take part in the matcher's own type check.
 */
function expectSameRows(actual: readonly unknown[], expected: readonly unknown[]): void {
  const entries = (rows: readonly unknown[]) => rows.map((row) => Object.entries(row as object));
  expect(entries(actual)).toStrictEqual(entries(expected));
  expect(actual.map((row) => Object.getPrototypeOf(row))).toStrictEqual(expected.map((row) => Object.getPrototypeOf(row)));
}

describe('RowReader (rows built from raw arrays)', () => {
  const open: BetterSqlite3.Database[] = [];
  const memory = () => {
    const db = new BetterSqlite3(':memory:');
    open.push(db);
    return db;
  };
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
  });

  const columnName = fc.oneof(fc.constantFrom('a', 'b', 'id', '0', '12', 'constructor', 'toString', 'a b', 'ä', '"'), fc.string({ minLength: 1, maxLength: 6 }));
  const value = fc.oneof(
    fc.constant(null),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
  );

  it('makes the objects better-sqlite3 makes, duplicate and odd column names included', () => {
    const db = memory();
    fc.assert(
      fc.property(fc.array(fc.tuple(columnName, value), { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 3 }), (columns, rowCount) => {
        const select = `select ${columns.map(([name]) => `? as "${name.replaceAll('"', '""')}"`).join(', ')}`;
        const text = Array.from({ length: rowCount }, () => select).join(' union all ') || `${select} where 0`;
        const parameters = Array.from({ length: Math.max(rowCount, 1) }, () => columns.map(([, v]) => v)).flat();
        const reader = new RowReader(db.prepare(text));
        expectSameRows(reader.all(parameters), ownRows(db, text, parameters));
        expectSameRows([...reader.iterate(parameters)], ownRows(db, text, parameters));
        const first = reader.get(parameters);
        const own = db.prepare(text).get(parameters);
        expectSameRows(first === undefined ? [] : [first], own === undefined ? [] : [own]);
      }),
      { numRuns: 300 },
    );
  });

  it('treats a column named __proto__ as better-sqlite3 does (an assignment, which ignores a scalar)', () => {
    const db = memory();
    const text = 'select 1 as a, 2 as "__proto__", 3 as a';
    expectSameRows(new RowReader(db.prepare(text)).all([]), ownRows(db, text, []));
  });

  it('reads the column names again when a schema change widens or narrows a statement', () => {
    const db = memory();
    db.exec("create table t (a text, b integer); insert into t values ('x', 1)");
    const reader = new RowReader(db.prepare('select * from t'));
    expect(reader.all([])).toStrictEqual([{ a: 'x', b: 1 }]);
    db.exec("alter table t add column c text default 'new'");
    expect(reader.all([])).toStrictEqual([{ a: 'x', b: 1, c: 'new' }]);
    db.exec('alter table t drop column b');
    expect(reader.get([])).toStrictEqual({ a: 'x', c: 'new' });
  });

  it('refuses a statement that returns no rows', () => {
    expect(() => new RowReader(memory().prepare('create table t (a text)'))).toThrow(/returns rows/);
  });
});

describe('openSqlite and RowReader', () => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('forgets its statements’ column names when it runs a schema statement (a rename keeps the width)', async () => {
    database = openSqlite(':memory:');
    const { db } = database;
    await sql`create table t (a text, b integer)`.execute(db);
    await sql`insert into t values ('x', 1)`.execute(db);
    const read = async () => (await sql<Record<string, unknown>>`select * from t`.execute(db)).rows;
    expect(await read()).toStrictEqual([{ a: 'x', b: 1 }]);
    await sql`alter table t rename column b to renamed`.execute(db);
    expect(await read()).toStrictEqual([{ a: 'x', renamed: 1 }]);
  });

  it('streams rows as objects', async () => {
    database = openSqlite(':memory:');
    const { db } = database;
    await sql`create table t (a integer)`.execute(db);
    await sql`insert into t values (1), (2), (3)`.execute(db);
    const streamed: unknown[] = [];
    for await (const row of db
      .selectFrom('t' as never)
      .selectAll()
      .stream())
      streamed.push(row);
    expect(streamed).toStrictEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });
});
