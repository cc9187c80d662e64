import { afterAll, describe, expect, it } from 'vitest';
import type { Database, DialectName } from '../../../src/db/dialect.js';
import { migrateTo, migrateToLatest, migrationNames } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { schemaDrift } from '../../../src/db/schema-drift.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { defineResource } from '../../../src/registry/define-resource.js';
import { getResource, resources } from '../../../src/registry/index.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';

async function emptyDatabase(dialect: DialectName): Promise<Database> {
  return dialect === 'sqlite' ? openSqlite(':memory:') : openPostgres({ connectionString: await freshPostgresUrl(), poolSize: 2, statementTimeoutMs: 5000 });
}

/** Tables, their columns and types, and every index: what an upgrade must reproduce. */
async function shape(database: Database): Promise<Record<string, { columns: string[]; indexes: string[] }>> {
  const out: Record<string, { columns: string[]; indexes: string[] }> = {};
  for (const table of await database.db.introspection.getTables()) {
    out[table.name] = {
      columns: table.columns.map((c) => `${c.name}:${c.dataType.toLowerCase()}:${c.isNullable ? 'null' : 'not null'}`).sort(),
      indexes: [...(await database.dialect.listIndexes(database.db, table.name))].sort(),
    };
  }
  return out;
}

describe.each(dialects)('versioned migrations on %s', (dialect) => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });
  const open = async () => {
    const database = await emptyDatabase(dialect);
    opened.push(database);
    return database;
  };

  it('a fresh database at head matches the registry exactly', async () => {
    const head = await open();
    await migrateToLatest(head);
    expect(await schemaDrift(head)).toEqual([]);
  });

  it('a database created at every earlier level upgrades to the same schema as a fresh one, keeping its rows', async () => {
    const head = await open();
    await migrateToLatest(head);
    const expected = await shape(head);
    const names = migrationNames(head);
    expect(names.length).toBeGreaterThanOrEqual(5);
    // Each level upgrades its own database, so a few run side by side: on PostgreSQL the
    // upgrades mostly wait on DDL round trips, and one after another they outlast the
    // test's timeout on a busy machine. A few, not all: each holds its own connections.
    const levels = names.slice(0, -1);
    const sideBySide = 4;
    const upgrade = async (level: string) => {
      const database = await open();
      await migrateTo(database, level);
      // A tenant row written at that level must survive the upgrade.
      await database.db
        .insertInto('tenants')
        .values({
          _id: `t-${level}`,
          tenant_id: null,
          created_at: '2026-01-01T00:00:00.000Z',
          updated_at: '2026-01-01T00:00:00.000Z',
          name: level,
          level: 'partner',
          etag: '"e"',
          path: `/t-${level}/`,
        })
        .execute();
      const report = await migrateToLatest(database);
      expect(report.applied, level).toEqual(names.slice(names.indexOf(level) + 1));
      expect(await shape(database), `upgraded from ${level}`).toEqual(expected);
      expect(await schemaDrift(database), level).toEqual([]);
      const row = await database.db.selectFrom('tenants').select(['name']).where('_id', '=', `t-${level}`).executeTakeFirst();
      expect(row?.name).toBe(level);
    };
    for (let next = 0; next < levels.length; next += sideBySide) await Promise.all(levels.slice(next, next + sideBySide).map(upgrade));
    // Every level's whole migration history: a few seconds on an idle machine, more than
    // the default 30 s on a busy one.
  }, 180_000);

  it('0018 records the longest live booking of each product that has bookings', async () => {
    const database = await open();
    await migrateTo(database, '0017-webhook-delivery-attempts');
    const at = (iso: string) => database.dialect.toDb('timestamp', iso);
    const booking = (id: string, product: string, start: string, end: string, deleted: string | null = null) => ({
      _id: id,
      tenant_id: null,
      created_at: at('2026-01-01T00:00:00.000Z'),
      updated_at: at('2026-01-01T00:00:00.000Z'),
      etag: '"e"',
      product_id: product,
      start_time: at(start),
      end_time: at(end),
      status: 'cancelled',
      quantity: 1,
      deleted_at: deleted === null ? null : at(deleted),
    });
    await database.db
      .insertInto('bookings')
      .values([
        booking('b1', 'p1', '2030-01-01T00:00:00.000Z', '2030-01-01T02:00:00.000Z'),
        booking('b2', 'p1', '2030-01-05T00:00:00.000Z', '2030-01-08T00:00:00.000Z'),
        booking('b3', 'p1', '2030-02-01T00:00:00.000Z', '2030-03-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'),
        booking('b4', 'p2', '2030-01-01T00:00:00.000Z', '2030-01-01T00:30:00.000Z'),
      ])
      .execute();
    await migrateToLatest(database);
    const spans = await database.db.selectFrom('product_booking_spans').select(['product_id', 'longest_ms']).orderBy('product_id').execute();
    expect(spans.map((row) => [row.product_id, Number(row.longest_ms)])).toEqual([
      ['p1', 3 * 86_400_000],
      ['p2', 30 * 60_000],
    ]);
  });

  it('a registry field without a migration is reported with the field, the table and the fix', async () => {
    const head = await open();
    await migrateToLatest(head);
    const products = getResource('products');
    const grown = defineResource({
      ...products,
      fields: {
        ...Object.fromEntries(Object.entries(products.fields).filter(([name]) => !['_id', 'tenant_id', 'created_at', 'updated_at'].includes(name))),
        loyalty_tier: { type: 'string', description: 'new', sortable: true, gdpr: 'none' },
      },
    });
    const registry = resources.map((r) => (r.name === 'products' ? grown : r));
    expect(await schemaDrift(head, registry)).toEqual([
      'resource products: field loyalty_tier (string) has no column products.loyalty_tier; add a migration (addColumns) for it',
      'resource products: index products_tenant_loyalty_tier_idx (from a sortable, reference or composite-index declaration) is missing; add a migration that creates it',
    ]);
  });

  it('migrateToLatest refuses to finish on a schema that drifted from the registry', async () => {
    const head = await open();
    await migrateToLatest(head);
    await head.db.schema.alterTable('bookings').dropColumn('notes').execute();
    await expect(migrateToLatest(head)).rejects.toThrow(/the database schema does not match the resource registry:\n {2}- resource bookings: field notes \(string\) has no column bookings\.notes/);
  });
});
