/**
 * The availability scenarios' data: 1 000 products in ten cities (100 each) of their own
 * tenant, and 100 bookings per product spread over one year (100 000 in all), inserted in
 * bulk like bench/bulk-seed.ts. The plan is pure and seeded (the same data on every run and
 * on both databases) and valid: the bookings that hold units never hold more than the
 * product's `total_items` at any instant, as if every one had been made through the API.
 */
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../src/db/dialect.js';
import { getResource } from '../src/registry/index.js';
import { normaliseBody } from '../src/services/normalise-body.js';
import { insertRows, storedRow } from './bulk-seed.js';
import { peakHeld, seededRandom } from './overlap.js';

/** Ten cities, none of them the fixtures' Berlin, so a city search matches exactly its 100 products. */
export const catalogueCities = ['Lisboa', 'Porto', 'Madrid', 'Sevilla', 'Valencia', 'Bologna', 'Torino', 'Lyon', 'Gent', 'Graz'] as const;

/** The year the bookings fall in (UTC). */
export const catalogueYearStart = Date.UTC(2027, 0, 1);

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** Check-in at 15:00 and check-out at 11:00 (UTC), as a hotel would. */
const checkInHour = 15;
const checkOutHour = 11;
const maxNights = 7;
const cancelledShare = 0.1;
/** Tries to place a booking where capacity allows before it is stored as cancelled instead. */
const placementAttempts = 20;

export interface CatalogueShape {
  readonly products: number;
  readonly bookingsPerProduct: number;
}

export const defaultCatalogue: CatalogueShape = { products: 1_000, bookingsPerProduct: 100 };

export interface PlannedBooking {
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
  readonly status: 'active' | 'cancelled';
}

/** Product `index` as a create request body: 5–20 units, published, in one of the ten cities. */
export function catalogueProduct(index: number): Record<string, unknown> {
  const city = catalogueCities[index % catalogueCities.length] ?? catalogueCities[0];
  return {
    name: `${city} apartment ${index}`,
    description: 'Two rooms, a kitchen and a balcony; linen and towels included.',
    address: `Rua das Flores ${index + 1}`,
    city,
    zip_code: String(10_000 + index),
    country: 'PT',
    total_items: 5 + (index % 16),
    is_published: true,
  };
}

/**
 * `count` bookings of one product with `totalItems` units over the year from `yearStart`:
 * stays of 1–7 nights (15:00 to 11:00), 1–3 units, about one in ten cancelled. A stay that
 * would hold more than `totalItems` units at some hour is moved to another day; after
 * {@link placementAttempts} tries it is kept as a cancelled booking, which holds nothing.
 */
export function planBookings(random: () => number, totalItems: number, count: number, yearStart: number): PlannedBooking[] {
  const held = new Int32Array((366 + maxNights + 1) * 24);
  const planned: PlannedBooking[] = [];
  const pick = (n: number) => Math.floor(random() * n);
  for (let i = 0; i < count; i += 1) {
    const wantsCancelled = random() < cancelledShare;
    let booking: PlannedBooking | undefined;
    for (let attempt = 0; attempt < placementAttempts && !booking; attempt += 1) {
      const day = pick(365);
      const nights = 1 + pick(maxNights);
      const quantity = Math.min(totalItems, 1 + pick(3));
      const first = day * 24 + checkInHour;
      const last = (day + nights) * 24 + checkOutHour;
      const candidate: PlannedBooking = { start: yearStart + first * hourMs, end: yearStart + last * hourMs, quantity, status: wantsCancelled ? 'cancelled' : 'active' };
      if (wantsCancelled) {
        booking = candidate;
        break;
      }
      let fits = true;
      for (let h = first; h < last && fits; h += 1) fits = (held[h] ?? 0) + quantity <= totalItems;
      if (!fits) continue;
      for (let h = first; h < last; h += 1) held[h] = (held[h] ?? 0) + quantity;
      booking = candidate;
    }
    planned.push(booking ?? { start: yearStart + dayMs, end: yearStart + 2 * dayMs, quantity: 1, status: 'cancelled' });
  }
  return planned;
}

/** The most units `plan` holds at any instant of `[from, to)` (what an availability slot calls `booked`). */
export function plannedPeak(plan: readonly PlannedBooking[], from: number, to: number): number {
  const clipped = plan.filter((b) => b.status === 'active' && b.start < to && b.end > from).map((b) => ({ start: Math.max(b.start, from), end: Math.min(b.end, to), quantity: b.quantity }));
  return peakHeld(clipped).held;
}

export interface SeededCatalogue {
  /** Product ids by index (`catalogueProduct(index)`). */
  readonly productIds: readonly string[];
  /** `total_items` by product index. */
  readonly totalItems: readonly number[];
  /** The bookings of each product, by product index: what the service should answer from. */
  readonly plans: readonly (readonly PlannedBooking[])[];
  readonly bookings: number;
  /** Bookings that hold units (`active`). */
  readonly holding: number;
  readonly seconds: number;
}

export interface InsertedProducts {
  readonly ids: readonly string[];
  readonly totalItems: readonly number[];
}

/** Inserts `count` products of `tenantId` built by `body(index)` (create request bodies), in bulk. */
export async function insertProducts(database: Database, tenantId: string, count: number, body: (index: number) => Record<string, unknown>): Promise<InsertedProducts> {
  const products = getResource('products');
  const createdMs = Date.now() - 30 * dayMs;
  const at = new Date(createdMs).toISOString();
  const ids: string[] = [];
  const totalItems: number[] = [];
  await insertRows(database, products.table, count, (index) => {
    // The service's own validation fills the defaults (status, and whatever fields a later change adds).
    const values = normaliseBody(products, body(index), 'create');
    const id = uuidv7({ msecs: createdMs });
    ids.push(id);
    totalItems.push(Number(values.total_items));
    return storedRow(products, database, { ...values, _id: id, tenant_id: tenantId, created_at: at, updated_at: at });
  });
  return { ids, totalItems };
}

export interface BookedProducts {
  readonly productIds: readonly string[];
  readonly totalItems: readonly number[];
  readonly plans: readonly (readonly PlannedBooking[])[];
  readonly bookings: number;
  readonly holding: number;
}

/**
 * Inserts `count` products built by `body(index)` and `bookingsPerProduct` planned bookings
 * of each (PRNG seeded with `seed`, references `<prefix>-<n>`), and each product's longest
 * booking as the capacity check records it, in bulk.
 */
export async function seedBookedProducts(
  database: Database,
  tenantId: string,
  shape: CatalogueShape,
  body: (index: number) => Record<string, unknown>,
  seed: number,
  referencePrefix: string,
): Promise<BookedProducts> {
  const bookings = getResource('bookings');
  const createdMs = Date.now() - 30 * dayMs;
  const at = new Date(createdMs).toISOString();
  const { ids: productIds, totalItems: totals } = await insertProducts(database, tenantId, shape.products, body);
  const random = seededRandom(seed);
  const plans = productIds.map((_, index) => planBookings(random, totals[index] ?? 1, shape.bookingsPerProduct, catalogueYearStart));
  const defaults = normaliseBody(bookings, { product_id: productIds[0], start_time: at, end_time: at }, 'create');
  let holding = 0;
  const total = shape.products * shape.bookingsPerProduct;
  await insertRows(database, bookings.table, total, (i) => {
    const product = i % shape.products;
    const plan = plans[product]?.[Math.floor(i / shape.products)];
    if (!plan) throw new Error(`no planned booking ${i}`);
    if (plan.status === 'active') holding += 1;
    return storedRow(bookings, database, {
      ...defaults,
      _id: uuidv7({ msecs: createdMs }),
      tenant_id: tenantId,
      created_at: at,
      updated_at: at,
      product_id: productIds[product],
      start_time: new Date(plan.start).toISOString(),
      end_time: new Date(plan.end).toISOString(),
      status: plan.status,
      quantity: plan.quantity,
      reference: `${referencePrefix}-${i}`,
    });
  });
  // Each product's longest booking, as the capacity check records it for bookings made
  // through the API (src/booking/booking-spans.ts): availability looks back that far.
  await insertRows(database, 'product_booking_spans', productIds.length, (index) => ({ product_id: productIds[index], longest_ms: Math.max(0, ...(plans[index] ?? []).map((b) => b.end - b.start)) }));
  return { productIds, totalItems: totals, plans, bookings: total, holding };
}

/** Inserts the catalogue's products and bookings into `tenantId`, in bulk. */
export async function seedCatalogue(database: Database, tenantId: string, shape: CatalogueShape = defaultCatalogue): Promise<SeededCatalogue> {
  const started = performance.now();
  const seeded = await seedBookedProducts(database, tenantId, shape, catalogueProduct, 20_270_101, 'AV');
  return { ...seeded, seconds: (performance.now() - started) / 1000 };
}

/**
 * The selling scenarios' products (`book`, `quote`, `order-create`): 100 products with a
 * price per night and two service charges, beside the catalogue's 1 000 in the same tenant,
 * in a city of their own (so the availability search's cities still match exactly their
 * 100 products) and with the same density of seeded bookings (100 each over 2027). The
 * catalogue's products keep no price, so the availability scenarios measure what they did.
 * 20–30 units each, so the stays the scenarios add rarely meet a full night.
 */
export const sellingCity = 'Faro';
export const sellingCatalogue: CatalogueShape = { products: 100, bookingsPerProduct: 100 };
/** Seeded products are priced per night in this zone (its DST changes price like a real stay). */
export const sellingTimeZone = 'Europe/Lisbon';

/** Priced product `index` as a create request body. */
export function pricedProduct(index: number): Record<string, unknown> {
  return {
    name: `Faro flat ${index}`,
    description: 'A studio by the marina, priced per night.',
    address: `Rua do Mar ${index + 1}`,
    city: sellingCity,
    zip_code: String(8_000 + index),
    country: 'PT',
    total_items: 20 + (index % 11),
    is_published: true,
    time_zone: sellingTimeZone,
    price: 60 + (index % 9) * 10,
    price_unit: 'night',
    currency: 'EUR',
  };
}

/** A service charge of every priced product: its cleaning once per order and a tourist tax per unit and night. */
export interface PlannedCharge {
  readonly name: string;
  readonly basis: 'per_order' | 'per_unit' | 'per_unit_per_period' | 'percent_of_rent';
  readonly amount: number;
}

export const sellingCharges: readonly PlannedCharge[] = [
  { name: 'Cleaning', basis: 'per_order', amount: 25 },
  { name: 'Tourist tax', basis: 'per_unit_per_period', amount: 2 },
];

/** What a stay of `nights` nights and `quantity` units of a product at `price` costs with {@link sellingCharges}. */
export function expectedTotal(price: number, nights: number, quantity: number): number {
  let total = price * nights * quantity;
  for (const charge of sellingCharges) {
    if (charge.basis === 'per_order') total += charge.amount;
    else if (charge.basis === 'per_unit') total += charge.amount * quantity;
    else if (charge.basis === 'per_unit_per_period') total += charge.amount * quantity * nights;
    else total += (price * nights * quantity * charge.amount) / 100;
  }
  return total;
}

/** Inserts {@link sellingCharges} for each of `productIds` (EUR, the products' currency), in bulk. */
export async function insertCharges(database: Database, tenantId: string, productIds: readonly string[]): Promise<number> {
  const charges = getResource('service-charges');
  const createdMs = Date.now() - 30 * dayMs;
  const at = new Date(createdMs).toISOString();
  const count = productIds.length * sellingCharges.length;
  await insertRows(database, charges.table, count, (i) => {
    const charge = sellingCharges[i % sellingCharges.length] ?? sellingCharges[0];
    const productId = productIds[Math.floor(i / sellingCharges.length)];
    const values = normaliseBody(charges, { product_id: productId, name: charge?.name, basis: charge?.basis, amount: charge?.amount, currency: 'EUR' }, 'create');
    // created_at orders a product's charges (the price lists them in that order): one ms apart.
    const created = new Date(createdMs + (i % sellingCharges.length)).toISOString();
    return storedRow(charges, database, { ...values, _id: uuidv7({ msecs: createdMs }), tenant_id: tenantId, created_at: created, updated_at: at });
  });
  return count;
}

export interface SeededSelling extends BookedProducts {
  /** `price` by product index. */
  readonly prices: readonly number[];
  readonly charges: number;
  readonly seconds: number;
}

/** Inserts the priced products, their bookings and their service charges into `tenantId`, in bulk. */
export async function seedSelling(database: Database, tenantId: string, shape: CatalogueShape = sellingCatalogue): Promise<SeededSelling> {
  const started = performance.now();
  const seeded = await seedBookedProducts(database, tenantId, shape, pricedProduct, 20_261_206, 'SL');
  const charges = await insertCharges(database, tenantId, seeded.productIds);
  const prices = seeded.productIds.map((_, index) => Number(pricedProduct(index).price));
  return { ...seeded, prices, charges, seconds: (performance.now() - started) / 1000 };
}
