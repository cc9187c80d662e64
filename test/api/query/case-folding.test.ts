/**
 * Case-insensitive matching beyond ASCII: `$options: "i"` and the sign-in's e-mail lookup.
 * The string columns are `collate "C"` on PostgreSQL (byte order, like SQLite), under which
 * PostgreSQL folds ASCII letters only, whatever the database's locale. The dialect therefore
 * folds in the database's default collation: in a `C.UTF-8` database every letter folds as
 * on SQLite (JavaScript's folding, RE2's); in a `C` database (the test cluster's own) only
 * ASCII letters do, as docs/api.md and docs/end-users.md say.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { freshPostgresUrl } from '../../support/databases.js';

const subjects = ['JÜRGEN', 'jürgen', 'Jürgen', 'ÉLAN', 'élan', 'Élan', 'plain', 'PLAIN'];
const patterns = ['jürgen', 'ÉLAN', '^él', 'plain'];

/** What a database answers: per pattern the subjects `$options: "i"` selects, and those whose folded form is `jürgen` or `élan`. */
async function answers(database: Database): Promise<Record<string, string[]>> {
  const { db, dialect } = database;
  await sql`create table folding (x ${sql.raw(dialect.columnType('string'))})`.execute(db);
  for (const subject of subjects) await sql`insert into folding (x) values (${subject})`.execute(db);
  const found: Record<string, string[]> = {};
  const select = async (where: ReturnType<typeof sql>) => (await sql<{ x: string }>`select x from folding where ${where} order by x`.execute(db)).rows.map((r) => r.x);
  for (const pattern of patterns) found[`~* ${pattern}`] = await select(dialect.regexMatch(sql.ref('x'), pattern, true));
  for (const lowered of ['jürgen', 'élan', 'plain']) found[`lower = ${lowered}`] = await select(sql`${dialect.lowerCase(sql.ref('x'))} = ${lowered}`);
  return found;
}

/** A database with `ctype` (and byte-order collation) in the run's cluster. */
async function postgresWith(ctype: string): Promise<Database> {
  return openPostgres({ connectionString: await freshPostgresUrl({ ctype }), poolSize: 2, statementTimeoutMs: 5000 });
}

describe('case-insensitive matching beyond ASCII', () => {
  const open: Database[] = [];
  let sqlite: Record<string, string[]>;

  beforeAll(async () => {
    const database = openSqlite(':memory:');
    open.push(database);
    sqlite = await answers(database);
  });
  afterAll(async () => {
    for (const database of open) await database.db.destroy();
  });

  it('SQLite folds every letter as JavaScript does', () => {
    expect(sqlite['lower = jürgen']).toEqual(['JÜRGEN', 'Jürgen', 'jürgen']);
    expect(sqlite['~* ÉLAN']).toEqual(['ÉLAN', 'Élan', 'élan']);
    expect(sqlite['~* ^él']).toEqual(['ÉLAN', 'Élan', 'élan']);
  });

  it('PostgreSQL with LC_CTYPE C.UTF-8 answers exactly as SQLite, though its columns sort in byte order', async () => {
    const database = await postgresWith('C.UTF-8');
    open.push(database);
    expect(await answers(database)).toEqual(sqlite);
  });

  it('PostgreSQL with LC_CTYPE C folds ASCII letters only', async () => {
    const database = await postgresWith('C');
    open.push(database);
    const found = await answers(database);
    expect(found['lower = jürgen']).toEqual(['Jürgen', 'jürgen']);
    // `É` matches only itself; the ASCII letters after it fold.
    expect(found['~* ÉLAN']).toEqual(['ÉLAN', 'Élan']);
    expect(found['~* ^él']).toEqual(['élan']);
    expect(found['~* plain']).toEqual(sqlite['~* plain']);
    expect(found['~* plain']).toEqual(['PLAIN', 'plain']);
  });
});
