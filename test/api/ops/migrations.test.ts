import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest, migrationsComplete } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { storedFields } from '../../../src/db/schema.js';
import { resources } from '../../../src/registry/index.js';
import { dialects, freshDatabase, freshPostgresUrl } from '../../support/databases.js';

describe('concurrent migrations on postgres', () => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });

  it('several instances migrating one fresh database at once all succeed and apply each migration once', async () => {
    const url = await freshPostgresUrl();
    const instances = [1, 2, 3].map(() => openPostgres({ connectionString: url, poolSize: 2, statementTimeoutMs: 5000 }));
    opened.push(...instances);
    const reports = await Promise.all(instances.map((database) => migrateToLatest(database)));

    const applied = reports.flatMap((report) => report.applied);
    const names = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(instances[0]!.db)).rows.map((r) => r.name);
    expect(names.length).toBeGreaterThan(0);
    // Every migration ran in exactly one instance; the others found nothing to do.
    expect([...applied].sort()).toEqual(names);
    expect(reports.filter((report) => report.applied.length === 0)).toHaveLength(2);
    for (const database of instances) expect(await migrationsComplete(database)).toBe(true);
    expect((await migrateToLatest(instances[1]!)).applied).toEqual([]);
  });
});

describe.each(dialects)('live schema on %s', (dialect) => {
  let database: Database;
  afterAll(() => database.close());

  it("has a table per resource whose columns are exactly the registry's stored fields plus bookkeeping", async () => {
    database = await freshDatabase(dialect);
    const tables = new Map((await database.db.introspection.getTables()).map((table) => [table.name, table]));
    for (const resource of resources) {
      const table = tables.get(resource.table);
      expect(table, resource.table).toBeDefined();
      const expected = [...storedFields(resource), 'etag'];
      if (resource.softDelete) expected.push('deleted_at');
      if (resource.tenancy === 'node') expected.push('path');
      const columns = (table?.columns ?? []).map((column) => column.name);
      expect([...columns].sort(), resource.table).toEqual([...expected].sort());
      for (const name of storedFields(resource)) {
        const field = resource.fields[name];
        const column = table?.columns.find((c) => c.name === name);
        expect(column?.dataType.toLowerCase(), `${resource.table}.${name}`).toBe(dialectType(dialect, field?.type));
      }
    }
    expect(await migrationsComplete(database)).toBe(true);
    expect((await migrateToLatest(database)).applied).toEqual([]);
  });
});

/** Column types as each database's introspection reports them. */
function dialectType(dialect: string, type: string | undefined): string {
  const postgres: Record<string, string> = {
    string: 'text',
    reference: 'text',
    integer: 'int4',
    number: 'float8',
    boolean: 'bool',
    timestamp: 'timestamptz',
    string_list: 'jsonb',
    object: 'jsonb',
  };
  const sqlite: Record<string, string> = {
    string: 'text',
    reference: 'text',
    integer: 'integer',
    number: 'real',
    boolean: 'integer',
    timestamp: 'text',
    string_list: 'text',
    object: 'text',
  };
  return (dialect === 'postgres' ? postgres : sqlite)[type ?? ''] ?? `unknown ${type}`;
}
