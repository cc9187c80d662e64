/**
 * Selling a stay (docs/selling.md), on the booking tenant's catalogue with its 100 priced
 * products (bench/selling.ts):
 *
 * - `book`: `POST /v1/bookings` of a random product and stay: the plain booking create, the
 *   reference the selling requests' CPU is judged against (same products, same stays, same
 *   client, same connections).
 * - `quote`: `POST /v1/quotes` of a random product and stay: price (rent per night, two
 *   service charges), a capacity read and the quote's insert. Judged on its CPU per request
 *   against `book`'s (`sellingTargets`, bench/report.ts).
 * - `order-create`: `POST /v1/orders` with `{ product_id, start_time, end_time, quantity }`:
 *   price, capacity under the product's lock, the order and its `held` booking in one
 *   transaction. Judged like `quote`.
 * - `checkout-contended`: `--contenders` connections ordering ONE priced product, as
 *   `book-contended` books one: judged on its successful rate against `book-contended`'s,
 *   and the invariant is checked from the database afterwards.
 *
 * A 409 `capacity_exceeded` is counted apart (by design in the contended scenario, rare in
 * the others); every other failure shows as failed requests.
 */
import { getResource } from '../../src/registry/index.js';
import { bookingTenant } from '../booking-tenant.js';
import { expectedTotal, insertCharges, insertProducts, sellingTimeZone } from '../catalogue.js';
import type { SeededSelling } from '../catalogue.js';
import { runAgainstService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { priceOf, sellingClient, sellingProducts, stayPlanner } from '../selling.js';
import type { PlannedStay } from '../selling.js';
import { seedOnce, withStorage } from '../seed-storage.js';
import { catalogue } from './availability.js';
import { checkInvariant } from './book-contended.js';

type SellingScenario = 'book' | 'quote' | 'order-create';

const routes: Record<SellingScenario, { readonly path: string; readonly status: number }> = {
  book: { path: '/v1/bookings', status: 201 },
  quote: { path: '/v1/quotes', status: 200 },
  'order-create': { path: '/v1/orders', status: 201 },
};

/** Each scenario draws its own sequence of stays, the same in every run. */
const plannerSeeds: Record<SellingScenario, number> = { book: 101, quote: 202, 'order-create': 303 };

/** Checks one answer before the load: a fast wrong answer must fail the scenario, not pass its target. */
function checkAnswer(name: SellingScenario, stay: PlannedStay, body: Record<string, unknown>): void {
  const expected = expectedTotal(priceOf(stay.productIndex), stay.nights, stay.body.quantity);
  const fail = (what: string) => {
    throw new Error(`${name}: preflight answer ${what}: ${JSON.stringify(body).slice(0, 800)}`);
  };
  if (body.product_id !== stay.body.product_id) fail('names another product');
  if (name === 'book') return;
  const total = name === 'quote' ? body.total : body.total_amount;
  if (total !== expected) fail(`has total ${String(total)}, the product's price and charges give ${expected}`);
  const lines = Array.isArray(body.lines) ? (body.lines as { kind?: string }[]) : [];
  const rent = lines.filter((line) => line.kind === 'rent').length;
  const charges = lines.filter((line) => line.kind === 'service_charge').length;
  if (rent !== stay.nights || charges !== 2) fail(`has ${rent} rent and ${charges} service-charge lines, expected ${stay.nights} and 2`);
  if (name === 'order-create' && (body.status !== 'active' || typeof body.booking_id !== 'string')) fail('is not an active order with a held booking');
}

async function sellingScenario(ctx: BenchContext, name: SellingScenario): Promise<ScenarioResult> {
  const products: SeededSelling = await sellingProducts(ctx);
  const client = await sellingClient(ctx);
  const next = await seedOnce(ctx, `${name}-stays`, () => Promise.resolve(stayPlanner(products.productIds, plannerSeeds[name])));
  const { path, status } = routes[name];
  const result = await runAgainstService(ctx, name, async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // A stay that meets a full night answers 409 (rare): try the next one.
    for (let tries = 0; ; tries += 1) {
      const stay = next();
      const probe = await fetch(`${ctx.origin}${path}`, { method: 'POST', headers, body: JSON.stringify(stay.body) });
      const text = await probe.text();
      if (probe.status === status) {
        checkAnswer(name, stay, JSON.parse(text) as Record<string, unknown>);
        break;
      }
      if (probe.status !== 409 || tries >= 10) throw new Error(`preflight POST ${path}: expected ${status}, got ${probe.status}: ${text.slice(0, 500)}`);
    }
    return {
      spec: {
        origin: ctx.origin,
        connections: ctx.options.connections,
        request: { method: 'POST', path, headers, setupRequest: (request) => ({ ...request, body: JSON.stringify(next().body) }) },
      },
      extra: { pricedProducts: products.productIds.length, seededBookings: products.bookings },
    };
  });
  return withRefusals(result);
}

/** The 409 `capacity_exceeded` answers of a phase, shown apart from failures, and all answers per second. */
function withRefusals(result: ScenarioResult, more: Record<string, number | string | boolean | null> = {}): ScenarioResult {
  const statuses = result.phase?.statusCodes ?? {};
  const answered = result.phase ? result.phase.ok + result.phase.non2xx : 0;
  const refusals = statuses['409'] ?? 0;
  return {
    ...result,
    extra: {
      ...result.extra,
      capacityRefusals: refusals,
      capacityRefusalShare: answered > 0 ? Math.round((refusals / answered) * 1000) / 1000 : null,
      requestsPerSecond: result.phase ? Math.round((answered / result.phase.seconds) * 10) / 10 : null,
      ...more,
    },
  };
}

export const bookScenario = (ctx: BenchContext) => sellingScenario(ctx, 'book');
export const quoteScenario = (ctx: BenchContext) => sellingScenario(ctx, 'quote');
export const orderCreateScenario = (ctx: BenchContext) => sellingScenario(ctx, 'order-create');

/** Units of the product `checkout-contended` orders, and the minutes each order holds (as in book-contended). */
export const checkoutUnits = 10;
export const checkoutMinutes = 11;
const checkoutStart = Date.UTC(2031, 0, 1);
const minuteMs = 60_000;
/**
 * Each order holds its unit for a day (the longest `hold_seconds` allows), so no hold
 * expires during a run and the check afterwards counts every unit an order took.
 */
export const checkoutHoldSeconds = 86_400;
/** The contended product's price per hour (each 11-minute order is one started hour). */
export const checkoutPrice = 40;

/** The body of order `n`: one unit over `[t0 + n min, + 11 min)`, each overlapping the ten before and after it. */
export function contendedOrder(productId: string, n: number): Record<string, unknown> {
  const start = checkoutStart + n * minuteMs;
  return { product_id: productId, start_time: new Date(start).toISOString(), end_time: new Date(start + checkoutMinutes * minuteMs).toISOString(), quantity: 1, hold_seconds: checkoutHoldSeconds };
}

interface Checkout {
  readonly productId: string;
  /** The next slot to order; shared by every phase and round of the run. */
  next: number;
}

/** Orders of the product against held bookings: each active order must hold exactly one `held` booking of it, and no booking be without its order. */
async function checkOrders(ctx: BenchContext, productId: string): Promise<{ orders: number; activeOrders: number }> {
  return withStorage(ctx.config, async (database) => {
    const orders = await database.db.selectFrom(getResource('orders').table).select(['_id', 'status', 'booking_id']).where('product_id', '=', productId).where('deleted_at', 'is', null).execute();
    const bookings = await database.db.selectFrom(getResource('bookings').table).select(['_id', 'order_id', 'status']).where('product_id', '=', productId).where('deleted_at', 'is', null).execute();
    const active = orders.filter((order) => order.status === 'active');
    const byId = new Map(bookings.map((booking) => [String(booking._id), booking]));
    const orphan = active.find((order) => {
      const booking = byId.get(String(order.booking_id));
      return booking?.status !== 'held' || booking.order_id !== order._id;
    });
    if (orphan) throw new Error(`checkout-contended: INVARIANT VIOLATED: the active order ${String(orphan._id)} holds no held booking of its own`);
    const orderIds = new Set(orders.map((order) => String(order._id)));
    const stray = bookings.find((booking) => booking.status === 'held' && !orderIds.has(String(booking.order_id)));
    if (stray) throw new Error(`checkout-contended: INVARIANT VIOLATED: the held booking ${String(stray._id)} has no order`);
    return { orders: orders.length, activeOrders: active.length };
  });
}

export async function checkoutContendedScenario(ctx: BenchContext): Promise<ScenarioResult> {
  // As book-contended: capacity is checked against a bookings table of realistic size.
  await catalogue(ctx);
  await sellingProducts(ctx);
  const tenant = await bookingTenant(ctx);
  const client = await sellingClient(ctx);
  const checkout: Checkout = await seedOnce(ctx, 'checkout-contended', () =>
    withStorage(ctx.config, async (database) => {
      const { ids } = await insertProducts(database, tenant.tenantId, 1, () => ({
        name: 'Contended studio',
        address: 'Rua Augusta 1',
        city: 'Lisboa (checkout)',
        zip_code: '1100-053',
        total_items: checkoutUnits,
        is_published: true,
        time_zone: sellingTimeZone,
        price: checkoutPrice,
        price_unit: 'hour',
        currency: 'EUR',
      }));
      await insertCharges(database, tenant.tenantId, ids);
      return { productId: ids[0] ?? '', next: 0 };
    }),
  );
  const connections = ctx.options.contenders;
  const result = await runAgainstService(ctx, 'checkout-contended', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // One slot in eleven is full by design: skip such slots until one is ordered (a 201 proves the path works).
    for (let tries = 0; ; tries += 1) {
      const probe = await fetch(`${ctx.origin}/v1/orders`, { method: 'POST', headers, body: JSON.stringify(contendedOrder(checkout.productId, checkout.next++)) });
      const text = await probe.text();
      if (probe.status === 201) {
        const order = JSON.parse(text) as Record<string, unknown>;
        // One started hour at the price, the cleaning and one hour's tourist tax.
        const expected = expectedTotal(checkoutPrice, 1, 1);
        if (order.total_amount !== expected || typeof order.booking_id !== 'string')
          throw new Error(`checkout-contended: preflight order ${text.slice(0, 800)}: expected total ${expected} and a booking`);
        break;
      }
      if (probe.status !== 409 || tries >= checkoutMinutes) throw new Error(`preflight POST /v1/orders: expected 201, got ${probe.status}: ${text.slice(0, 500)}`);
    }
    return {
      spec: {
        origin: ctx.origin,
        connections,
        request: { method: 'POST', path: '/v1/orders', headers, setupRequest: (request) => ({ ...request, body: JSON.stringify(contendedOrder(checkout.productId, checkout.next++)) }) },
      },
      extra: { contenders: connections, totalItems: checkoutUnits, orderMinutes: checkoutMinutes, holdSeconds: checkoutHoldSeconds },
    };
  });
  const check = await checkInvariant(ctx, checkout.productId, checkoutUnits, 'checkout-contended');
  const orders = await checkOrders(ctx, checkout.productId);
  return withRefusals(result, {
    bookingsInDatabase: check.bookings,
    holdingBookings: check.holding,
    heldUnexpired: check.heldUnexpired,
    heldExpired: check.heldExpired,
    ordersInDatabase: orders.orders,
    activeOrders: orders.activeOrders,
    peakHeld: check.peak,
    bruteForcePeak: check.bruteForcePeak,
    invariant: 'held',
  });
}
