/**
 * `list-filtered`: one page of a filtered, sorted booking list in a tenant holding `--rows`
 * bookings, among ten tenants (the nine others hold a tenth of that each, so the tenant
 * index has to do its job). Every request also counts all matches (`total`).
 */
import { sql } from 'kysely';
import { seedBookings } from '../bulk-seed.js';
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { seedOnce, withStorage } from '../seed-storage.js';

export const listWhere = { status: 'active', start_time: { $gte: '2026-03-01T00:00:00.000Z' } };
export const listPath = `/v1/bookings/?where=${encodeURIComponent(JSON.stringify(listWhere))}&sort=-start_time&per_page=25`;

export async function listFilteredScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { fixtures, options } = ctx;
  const otherRows = Math.ceil(options.rows / 10);
  const seededRows = options.rows + otherRows * fixtures.otherTenantIds.length;
  const seedSeconds = await seedOnce(ctx, 'list-filtered', () =>
    withStorage(ctx.config, async (database) => {
      let seconds = await seedBookings(database, fixtures.tenantId, fixtures.bookingProducts.get(fixtures.tenantId) ?? [], options.rows);
      for (const tenant of fixtures.otherTenantIds) seconds += await seedBookings(database, tenant, fixtures.bookingProducts.get(tenant) ?? [], otherRows);
      // PostgreSQL plans from statistics; after a bulk load autovacuum would gather them
      // only later, so gather them now as a production database would have them.
      if (database.dialect.name === 'postgres') await sql`analyze bookings`.execute(database.db);
      console.error(`  seeded ${seededRows} bookings in ${seconds.toFixed(1)} s`);
      return seconds;
    }),
  );
  return runAgainstService(ctx, 'list-filtered', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, fixtures.client);
    const headers = { authorization: `Bearer ${token}` };
    const page = (await (await preflight(`${ctx.origin}${listPath}`, { headers })).json()) as { items: unknown[]; total: number };
    if (page.items.length !== 25) throw new Error(`list-filtered: expected a full page, got ${page.items.length} items`);
    return {
      spec: { origin: ctx.origin, connections: options.connections, request: { method: 'GET', path: listPath, headers } },
      extra: { seededRows, tenantRows: options.rows, matches: page.total, seedSeconds: Math.round(seedSeconds * 10) / 10, seedRowsPerSecond: Math.round(seededRows / seedSeconds) },
    };
  });
}
