import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { rowToRecord } from '../../../src/data/record-codec.js';
import type { Row } from '../../../src/data/record-codec.js';
import type { Database, DialectName } from '../../../src/db/dialect.js';
import { migrateTo, migrateToLatest, migrationNames } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { schemaDrift } from '../../../src/db/schema-drift.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { defineResource } from '../../../src/registry/define-resource.js';
import { getResource, resources } from '../../../src/registry/index.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import { contentHashEtag } from '../../support/content-hash-etag.js';

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

  it('0023 gives every existing row a fresh random ETag; the old one is stale, the new one works in If-Match', async () => {
    const h = await createHarness(dialect);
    try {
      const tenant = await h.tenant('T');
      const token = await h.bearer(tenant, [...crud('products'), ...crud('users'), 'users:read:email', 'users:write:email']);
      const product = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 } });
      const user = await h.request({ method: 'POST', url: '/v1/users', token, body: { email: 'old@example.test', first_name: 'Old' } });
      const productId = String(product.json()._id);
      // Rows as the code before 0023 left them: ETags that hash the full stored record.
      for (const [resource, id] of [
        ['products', productId],
        ['users', String(user.json()._id)],
      ] as const) {
        const def = getResource(resource);
        const row = (await h.database.db.selectFrom(def.table).selectAll().where('_id', '=', id).executeTakeFirstOrThrow()) as Row;
        const hashed = contentHashEtag(null, rowToRecord(def, h.database.dialect, row));
        await h.database.db.updateTable(def.table).set({ etag: hashed }).where('_id', '=', id).execute();
      }
      const etags = async () => {
        const out = new Map<string, string>();
        for (const table of (await h.database.db.introspection.getTables()).filter((t) => t.columns.some((c) => c.name === 'etag'))) {
          for (const row of await h.database.db.selectFrom(table.name).select(['_id', 'etag']).execute()) out.set(`${table.name}/${String(row._id)}`, String(row.etag));
        }
        return out;
      };
      const before = await etags();
      expect([...before.keys()].map((key) => key.split('/')[0])).toEqual(expect.arrayContaining(['tenants', 'api_clients', 'products', 'users', 'audit_logs']));
      const stale = before.get(`products/${productId}`) ?? '';

      // The database at 0021 with these rows, upgraded.
      await sql`delete from kysely_migration where name = '0023-random-etags'`.execute(h.database.db);
      expect((await migrateToLatest(h.database)).applied).toEqual(['0023-random-etags']);

      const after = await etags();
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      for (const [key, etag] of after) {
        expect(etag, key).not.toBe(before.get(key));
        expect(etag, key).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      }
      expect(new Set(after.values()).size).toBe(after.size);
      // The audit trail is append-only again.
      await expect(h.database.db.updateTable('audit_logs').set({ etag: '"x"' }).execute()).rejects.toThrow(/append-only/);

      const patch = (etag: string) => h.request({ method: 'PATCH', url: `/v1/products/${productId}`, token, headers: { 'if-match': etag }, body: { total_items: 4 } });
      expect((await patch(stale)).statusCode).toBe(412);
      const read = await h.request({ method: 'GET', url: `/v1/products/${productId}`, token });
      expect(read.headers.etag).toBe(after.get(`products/${productId}`));
      const patched = await patch(String(read.headers.etag));
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().total_items).toBe(4);
    } finally {
      await h.close();
    }
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
