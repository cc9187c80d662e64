/**
 * `refuse-busy` (issue 52 §2, docs/bookings.md "Capacity"): a refusal stays small while it
 * holds the product's lock, however many bookings the product has. Three refusals (409
 * `capacity_exceeded`), each sent from `--connections` loops for `--duration` seconds after
 * `--warmup`, one after another against one service; reported are the refusals' p50 and p99:
 *
 * - `refuse-plain`: a booking of a product with one unit and one booking, over that
 *   booking's hour (one conflict): the reference;
 * - `refuse-busy-366-day`: a booking of 366 days (the longest a booking may last) of a
 *   product with 10 units and 100 000 one-hour bookings that hold all ten units every hour
 *   for 10 000 hours: its year overlaps 87 840 of them, the answer names the first 100 and
 *   says `conflicts_truncated`;
 * - `refuse-busy-total-items`: `PATCH` of that product's `total_items` to 9 (its bookings
 *   hold 10 from now on), named the same way.
 *
 * Targets (bench/report.ts): each busy refusal's p99 at most 10× the plain refusal's, same
 * connections, same round. Every answer is capped at 100 ids, and the check stops reading
 * the product's bookings once they hold every unit (`peakWithin`, src/booking/holdings.ts),
 * so nothing need grow with the product's bookings: an order of magnitude over a refusal
 * that reads one booking catches a refusal that reads the whole range or lists it.
 *
 * Each refusal is checked once before its load (status, code, the conflicts named), so a
 * fast wrong answer fails the scenario. No request changes anything: every one is refused.
 * The availability catalogue is seeded first, so the bookings table has its usual size.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { buildOperatorServices } from '../../cli/operator-services.js';
import { getResource } from '../../src/registry/index.js';
import { normaliseBody } from '../../src/services/normalise-body.js';
import { bookingTenant } from '../booking-tenant.js';
import { insertRows, storedRow } from '../bulk-seed.js';
import { insertProducts } from '../catalogue.js';
import type { BenchClient } from '../fixtures.js';
import { startService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { es256Key } from '../jws.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { seedOnce, withStorage } from '../seed-storage.js';
import { catalogue } from './availability.js';
import { loadFor, serviceCpu, timedResult } from './timed-load.js';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** Bookings of the busy product, and its units: every hour of 10 000 holds all of them. */
export const busyBookings = 100_000;
export const busyUnits = 10;
const busyStart = Date.UTC(2030, 0, 1);
/** Most conflicting ids one refusal names (docs/bookings.md "Capacity"). */
const namedConflicts = 100;

interface RefusalProducts {
  readonly busy: string;
  readonly plain: string;
  readonly seconds: number;
}

/** The busy product with its 100 000 bookings and the plain one with its one, seeded once per run. */
function refusalProducts(ctx: BenchContext): Promise<RefusalProducts> {
  return seedOnce(ctx, 'refuse-busy-products', async () => {
    await catalogue(ctx);
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const started = performance.now();
      const { ids } = await insertProducts(database, tenant.tenantId, 2, (index) => ({
        name: index === 0 ? 'Busy hostel' : 'Plain room',
        address: 'Rua Nova do Almada 1',
        city: 'Lisboa (refusals)',
        zip_code: '1200-001',
        total_items: index === 0 ? busyUnits : 1,
        is_published: true,
      }));
      const [busy = '', plain = ''] = ids;
      const bookings = getResource('bookings');
      const createdMs = Date.now() - 30 * dayMs;
      const at = new Date(createdMs).toISOString();
      // Booking i of the busy product holds one unit over hour ⌊i / 10⌋; the last row is the plain product's.
      await insertRows(database, bookings.table, busyBookings + 1, (i) => {
        const own = i === busyBookings;
        const start = busyStart + (own ? 10 : Math.floor(i / busyUnits)) * hourMs;
        const values = normaliseBody(
          bookings,
          { product_id: own ? plain : busy, start_time: new Date(start).toISOString(), end_time: new Date(start + hourMs).toISOString(), reference: `RB-${i}` },
          'create',
        );
        return storedRow(bookings, database, { ...values, _id: uuidv7({ msecs: createdMs }), tenant_id: tenant.tenantId, created_at: at, updated_at: at });
      });
      // Their longest booking, as the capacity check records it (src/booking/booking-spans.ts).
      await insertRows(database, 'product_booking_spans', ids.length, (index) => ({ product_id: ids[index], longest_ms: hourMs }));
      // As for the catalogue: PostgreSQL is measured analysed; SQLite gathers statistics only with --analyze.
      if (database.dialect.name === 'postgres') await sql`vacuum analyze bookings, products`.execute(database.db);
      else if (ctx.options.analyze) await sql`analyze`.execute(database.db);
      const seconds = (performance.now() - started) / 1000;
      console.error(`  seeded a product with ${busyBookings} bookings and one with 1 in ${seconds.toFixed(1)} s`);
      return { busy, plain, seconds };
    });
  });
}

/** A client of the booking tenant that books, reads bookings (so refusals name them) and changes products. */
function refusalClient(ctx: BenchContext): Promise<BenchClient> {
  return seedOnce(ctx, 'refuse-busy-client', async () => {
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-refusals.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await (
        await buildOperatorServices(ctx.config, database)
      ).createClient({
        name: 'bench refusals',
        tenant: tenant.tenantId,
        capabilities: 'products:read products:update bookings:create bookings:read',
        publicKeyFile: keyFile,
        kid: 'bench-refusals',
        ipAllow: undefined,
      });
      return { clientId: String(created._id), kid: String(created.kid), key };
    });
  });
}

interface Refusal {
  readonly scenario: string;
  readonly method: 'POST' | 'PATCH';
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  /** What the 409 must say, beyond its code. */
  readonly answers: (problem: Refused) => boolean;
}

/** The members of a 409 `capacity_exceeded` the preflight looks at. */
interface Refused {
  readonly code?: string;
  readonly conflicts?: unknown[];
  readonly conflicts_truncated?: boolean;
  readonly available?: number;
  readonly held?: number;
}

function refusals(products: RefusalProducts, productEtag: string): Refusal[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const capped = (p: Refused) => p.conflicts?.length === namedConflicts && p.conflicts_truncated === true;
  return [
    {
      scenario: 'refuse-plain',
      method: 'POST',
      path: '/v1/bookings',
      body: { product_id: products.plain, start_time: iso(busyStart + 10 * hourMs), end_time: iso(busyStart + 11 * hourMs) },
      answers: (p) => p.conflicts?.length === 1 && p.available === 0,
    },
    {
      scenario: 'refuse-busy-366-day',
      method: 'POST',
      path: '/v1/bookings',
      body: { product_id: products.busy, start_time: iso(busyStart), end_time: iso(busyStart + 366 * dayMs) },
      answers: (p) => capped(p) && p.available === 0,
    },
    {
      scenario: 'refuse-busy-total-items',
      method: 'PATCH',
      path: `/v1/products/${products.busy}`,
      body: { total_items: busyUnits - 1 },
      headers: { 'if-match': productEtag },
      answers: (p) => capped(p) && p.held === busyUnits,
    },
  ];
}

export async function refuseBusyScenario(ctx: BenchContext): Promise<ScenarioResult[]> {
  const products = await refusalProducts(ctx);
  const client = await refusalClient(ctx);
  const server = await startService(ctx);
  try {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const productEtag = (await preflight(`${ctx.origin}/v1/products/${products.busy}`, { headers })).headers.get('etag') ?? '';
    const results: ScenarioResult[] = [];
    for (const refusal of refusals(products, productEtag)) {
      const init: RequestInit = { method: refusal.method, headers: { ...headers, ...refusal.headers }, body: JSON.stringify(refusal.body) };
      const send = () => fetch(`${ctx.origin}${refusal.path}`, init);
      const first = await send();
      const text = await first.text();
      const problem: Refused = first.status === 409 ? (JSON.parse(text) as Refused) : {};
      if (problem.code !== 'capacity_exceeded' || !refusal.answers(problem))
        throw new Error(`${refusal.scenario}: preflight ${refusal.method} ${refusal.path}: expected the 409 capacity_exceeded described, got ${first.status}: ${text.slice(0, 800)}`);
      if (ctx.options.warmup > 0) await loadFor(ctx.options.connections, ctx.options.warmup, send);
      const before = serviceCpu(server.pid);
      const started = performance.now();
      const answers = await loadFor(ctx.options.connections, ctx.options.duration, send);
      const seconds = (performance.now() - started) / 1000;
      results.push(timedResult(refusal.scenario, answers, 409, seconds, { before, after: serviceCpu(server.pid) }, { busyBookings, seedSeconds: Math.round(products.seconds * 10) / 10 }));
    }
    return results;
  } finally {
    await server.stop();
  }
}
