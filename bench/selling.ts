/**
 * The selling scenarios' data and requests (`book`, `quote`, `order-create`,
 * `checkout-contended`): the priced products of bench/catalogue.ts, seeded once per run into
 * the booking tenant after the availability catalogue (so every write checks capacity
 * against a bookings table of 110 000 rows), and a client of that tenant that may quote
 * and order. `book-contended` and the availability scenarios keep their own client.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildOperatorServices } from '../cli/operator-services.js';
import { bookingTenant } from './booking-tenant.js';
import { catalogueYearStart, pricedProduct, seedSelling, sellingCatalogue } from './catalogue.js';
import type { SeededSelling } from './catalogue.js';
import type { BenchClient } from './fixtures.js';
import type { BenchContext } from './harness.js';
import { es256Key } from './jws.js';
import { seededRandom } from './overlap.js';
import { catalogue } from './scenarios/availability.js';
import { seedOnce, withStorage } from './seed-storage.js';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

export const sellingCapabilities = ['products:read', 'bookings:create', 'bookings:read', 'orders:create', 'orders:read', 'orders:quote'];

/** The booking tenant's second client: the same tenant and catalogue, with the selling capabilities. */
export function sellingClient(ctx: BenchContext): Promise<BenchClient> {
  return seedOnce(ctx, 'selling-client', async () => {
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const operator = await buildOperatorServices(ctx.config, database);
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-selling.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await operator.createClient({
        name: 'bench selling',
        tenant: tenant.tenantId,
        capabilities: sellingCapabilities.join(' '),
        publicKeyFile: keyFile,
        kid: 'bench-selling',
        ipAllow: undefined,
      });
      return { clientId: String(created._id), kid: String(created.kid), key };
    });
  });
}

/** The priced products, seeded once per run after the availability catalogue. */
export function sellingProducts(ctx: BenchContext): Promise<SeededSelling> {
  return seedOnce(ctx, 'selling-products', async () => {
    await catalogue(ctx);
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const seeded = await seedSelling(database, tenant.tenantId);
      // As for the catalogue: PostgreSQL is measured as autovacuum leaves a bulk load; SQLite
      // gathers statistics only with --analyze.
      if (database.dialect.name === 'postgres') await sql`vacuum analyze bookings, products, service_charges`.execute(database.db);
      else if (ctx.options.analyze) await sql`analyze`.execute(database.db);
      console.error(
        `  seeded ${seeded.productIds.length} priced products, ${seeded.charges} service charges and ${seeded.bookings} bookings (${seeded.holding} active) in ${seeded.seconds.toFixed(1)} s`,
      );
      return seeded;
    });
  });
}

/** A stay of one priced product: the body of a booking, a quote and an order alike. */
export interface StayRequest {
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly quantity: number;
}

/** A planned stay and what it must cost. */
export interface PlannedStay {
  readonly body: StayRequest;
  readonly productIndex: number;
  readonly nights: number;
}

/**
 * Random stays of the priced products: a product drawn uniformly, a check-in day of 2027
 * (15:00 UTC) and 1–7 nights (check-out 11:00 UTC), one unit. Over 100 products of 20–30
 * units and 365 days, the stays one run adds (tens of thousands at most) hold a few units
 * of a night on average, so capacity rarely refuses one. Seeded: every run asks the same.
 */
export function stayPlanner(productIds: readonly string[], seed: number): () => PlannedStay {
  const random = seededRandom(seed);
  const count = Math.min(productIds.length, sellingCatalogue.products);
  return () => {
    const productIndex = Math.floor(random() * count);
    const day = Math.floor(random() * 365);
    const nights = 1 + Math.floor(random() * 7);
    const start = catalogueYearStart + day * dayMs + 15 * hourMs;
    const end = catalogueYearStart + (day + nights) * dayMs + 11 * hourMs;
    const body: StayRequest = { product_id: productIds[productIndex] ?? '', start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString(), quantity: 1 };
    return { body, productIndex, nights };
  };
}

/** The price per night of priced product `index`. */
export const priceOf = (index: number): number => Number(pricedProduct(index).price);
