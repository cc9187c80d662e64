import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesQuery, parseSearch } from '../../../src/booking/availability-search.js';
import { withLongestBooking } from '../../../src/booking/booking-spans.js';
import type { Principal } from '../../../src/core/principal.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import type { Database } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { compileFilter } from '../../../src/query/compile-filter.js';
import { compileSort } from '../../../src/query/compile-sort.js';
import { getResource } from '../../../src/registry/index.js';

const products = getResource('products');
const cities = 10;
const largeTenant = 'tenant-large';

function tenantCaller(tenantId: string): Principal {
  const scope = { nodeId: tenantId, level: 'tenant' as const, path: `/${tenantId}/` };
  return { actorType: 'client', actorId: 'c', capabilities: new Set(), home: scope, scope, unrestricted: false };
}

/**
 * The availability search reads every product its filter matches. On SQLite, whose
 * statistics average the tenants, one large tenant among small ones makes a city look as
 * common as the whole tenant: with the list's sort in the same query the planner walked
 * the tenant's `created_at` index, reading every product to keep a city's tenth. The
 * search's sort keys (`sortKeyAfterFilter`) leave the index to the filter. PostgreSQL keeps
 * per-value statistics and plans this itself, so the check is SQLite's.
 */
describe('the availability search candidates on sqlite, one large tenant among small ones', () => {
  let database: Database;
  beforeAll(async () => {
    database = openSqlite(':memory:');
    await migrateToLatest(database);
    // The benchmark's shape: 2,000 products in ten cities for one tenant, five each for ten others.
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000)
      insert into products (_id, tenant_id, created_at, updated_at, name, city, total_items, status, is_published, etag)
      select 'large-' || i, ${largeTenant}, printf('2030-01-01T00:00:%02d.000Z', i % 60), '2030-01-01T00:00:00.000Z', 'p' || i, 'city-' || (i % ${sql.lit(cities)}), 3, 'active', 1, 'e' from n
    `.execute(database.db);
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 50)
      insert into products (_id, tenant_id, created_at, updated_at, name, city, total_items, status, is_published, etag)
      select 'small-' || i, 'tenant-small-' || (i % 10), '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', 'p' || i, 'city-' || (i % ${sql.lit(cities)}), 3, 'active', 1, 'e' from n
    `.execute(database.db);
    await database.dialect.refreshStatistics(database.db);
  });
  afterAll(() => database.close());

  const queries = () => new ScopedQueries(database.db, database.dialect, tenantCaller(largeTenant));
  const search = parseSearch({ city: 'city-3', from: '2030-07-01', to: '2030-07-08' });
  const plan = async (query: CompiledQuery) => (await database.db.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((row) => row.detail).join('\n');

  it('reads the city through its index and sorts the matches, in list order', async () => {
    const query = candidatesQuery(queries(), search.list).compile();
    expect(await plan(query)).toMatch(/SEARCH products USING INDEX products_tenant_city_idx \(tenant_id=\? AND city=\?\)/);
    const rows = (await database.db.executeQuery<{ _id: string; created_at: string; city: string }>(query)).rows;
    expect(rows).toHaveLength(200);
    expect(rows.every((row) => row.city === 'city-3')).toBe(true);
    const order = rows.map((row) => `${row.created_at} ${row._id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it('where the list sort kept the plain columns, the statistics steer the planner to walk the tenant in created_at order', async () => {
    const scoped = queries();
    const { filter } = search.list;
    if (!filter) throw new Error('the search filters by city');
    let plain = withLongestBooking(scoped.scoped(products).where(compileFilter(filter, products, scoped.dialect)));
    for (const order of compileSort(search.list.sort, products)) plain = plain.orderBy(order);
    expect(await plan(plain.compile())).toMatch(/USING INDEX products_tenant_created_at_idx \(tenant_id=\?\)/);
  });
});
