/**
 * `availability-product` and `availability-search` over the catalogue (bench/catalogue.ts):
 * 1 000 products in ten cities, 100 000 bookings over 2027, in a tenant of their own.
 *
 * - `availability-product`: `GET /v1/products/{id}/availability?from=2027-07-01&to=2027-08-01&granularity=day`,
 *   31 day slots; each request asks for the next of the 1 000 products, so no answer is a
 *   repeat of the one before. Judged on its p99 (`bookingTargets`, bench/report.ts).
 * - `availability-search`: `GET /v1/availability?city=<city>&from=2027-07-05&to=2027-07-12&quantity=1&per_page=100`,
 *   a 7-day search whose city filter matches 100 products, the whole result on one page;
 *   each request asks for the next of the ten cities. Judged on its p99, like the product's.
 *
 * Before the load, one answer of each kind is compared with what the seeded plan says
 * (booked units per day slot; how many products of the city are free), so a fast wrong
 * answer fails the scenario instead of passing its target.
 */
import { sql } from 'kysely';
import { bookingTenant } from '../booking-tenant.js';
import { catalogueCities, plannedPeak, seedCatalogue } from '../catalogue.js';
import type { SeededCatalogue } from '../catalogue.js';
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { seedOnce, withStorage } from '../seed-storage.js';

const dayMs = 86_400_000;
export const productRange = { from: '2027-07-01', to: '2027-08-01' } as const;
export const searchRange = { from: '2027-07-05', to: '2027-07-12' } as const;

export const productAvailabilityPath = (productId: string) => `/v1/products/${productId}/availability?from=${productRange.from}&to=${productRange.to}&granularity=day`;
export const searchPath = (city: string) => `/v1/availability?city=${encodeURIComponent(city)}&from=${searchRange.from}&to=${searchRange.to}&quantity=1&per_page=100`;

/** Seeded once per run; the booking-core scenarios (and every round) see the same data. */
export function catalogue(ctx: BenchContext): Promise<SeededCatalogue> {
  return seedOnce(ctx, 'catalogue', async () => {
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const seeded = await seedCatalogue(database, tenant.tenantId);
      // PostgreSQL's autovacuum reaches a bulk-loaded table within a minute (since PostgreSQL 13
      // inserts alone trigger it): it gathers the planner's statistics and marks the pages
      // all-visible, which lets the holdings index answer without the heap (index-only scans).
      // Measuring right after the load would time a state production leaves at once, so the
      // bench does the same work itself. SQLite has no such daemon and the service never runs
      // ANALYZE, so a production file has no statistics: only --analyze gathers them (to show
      // what they would change).
      if (database.dialect.name === 'postgres') await sql`vacuum analyze bookings, products`.execute(database.db);
      else if (ctx.options.analyze) await sql`analyze`.execute(database.db);
      console.error(
        `  seeded ${seeded.productIds.length} products and ${seeded.bookings} bookings (${seeded.holding} active) in ${seeded.seconds.toFixed(1)} s${database.dialect.name === 'sqlite' ? (ctx.options.analyze ? ', then ANALYZE' : ', no ANALYZE (as in production)') : ''}`,
      );
      return seeded;
    });
  });
}

interface Slot {
  readonly start: string;
  readonly booked: number;
  readonly available: number;
}

/** The slots of product `index` must say what the plan booked in each UTC day (products are in UTC). */
function checkSlots(seeded: SeededCatalogue, index: number, slots: readonly Slot[]): void {
  if (slots.length !== 31) throw new Error(`availability-product: expected 31 day slots, got ${slots.length}`);
  const plan = seeded.plans[index] ?? [];
  const total = seeded.totalItems[index] ?? 0;
  slots.forEach((slot, day) => {
    const from = Date.parse(`${productRange.from}T00:00:00Z`) + day * dayMs;
    const booked = plannedPeak(plan, from, from + dayMs);
    if (Date.parse(slot.start) !== from || slot.booked !== booked || slot.available !== Math.max(0, total - booked)) {
      throw new Error(`availability-product: slot ${day} is ${JSON.stringify(slot)}, the seeded bookings give start ${new Date(from).toISOString()}, booked ${booked} of ${total}`);
    }
  });
}

/** Products of `city` the plan leaves at least one unit free for over the whole search range. */
function expectedMatches(seeded: SeededCatalogue, city: string): number {
  const from = Date.parse(`${searchRange.from}T00:00:00Z`);
  const to = Date.parse(`${searchRange.to}T00:00:00Z`);
  let matches = 0;
  seeded.plans.forEach((plan, index) => {
    if (catalogueCities[index % catalogueCities.length] !== city) return;
    if ((seeded.totalItems[index] ?? 0) - plannedPeak(plan, from, to) >= 1) matches += 1;
  });
  return matches;
}

const seedExtra = (ctx: BenchContext, seeded: SeededCatalogue) => ({
  sqliteAnalyzed: ctx.options.database === 'sqlite' ? ctx.options.analyze : null,
  products: seeded.productIds.length,
  bookings: seeded.bookings,
  activeBookings: seeded.holding,
  seedSeconds: Math.round(seeded.seconds * 10) / 10,
});

export async function availabilityProductScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const seeded = await catalogue(ctx);
  const tenant = await bookingTenant(ctx);
  return runAgainstService(ctx, 'availability-product', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, tenant.client);
    const headers = { authorization: `Bearer ${token}` };
    const index = 7;
    const body = (await (await preflight(`${ctx.origin}${productAvailabilityPath(seeded.productIds[index] ?? '')}`, { headers })).json()) as { slots: Slot[] };
    checkSlots(seeded, index, body.slots);
    let next = 0;
    return {
      spec: {
        origin: ctx.origin,
        connections: ctx.options.connections,
        request: { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: productAvailabilityPath(seeded.productIds[next++ % seeded.productIds.length] ?? '') }) },
      },
      extra: { ...seedExtra(ctx, seeded), slots: body.slots.length },
    };
  });
}

export async function availabilitySearchScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const seeded = await catalogue(ctx);
  const tenant = await bookingTenant(ctx);
  return runAgainstService(ctx, 'availability-search', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, tenant.client);
    const headers = { authorization: `Bearer ${token}` };
    const city = catalogueCities[0];
    const page = (await (await preflight(`${ctx.origin}${searchPath(city)}`, { headers })).json()) as { items: unknown[]; total?: number };
    const expected = expectedMatches(seeded, city);
    const found = page.total ?? page.items.length;
    if (found !== expected || page.items.length !== Math.min(100, expected))
      throw new Error(`availability-search: ${city} should match ${expected} of its 100 products, the answer has total ${String(page.total)} and ${page.items.length} items`);
    let next = 0;
    return {
      spec: {
        origin: ctx.origin,
        connections: ctx.options.connections,
        request: { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: searchPath(catalogueCities[next++ % catalogueCities.length] ?? city) }) },
      },
      extra: { ...seedExtra(ctx, seeded), candidates: 100, matches: found },
    };
  });
}
