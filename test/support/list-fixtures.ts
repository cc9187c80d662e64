import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** A record as the API returned it on create. */
export type Doc = Readonly<Record<string, unknown>> & { readonly _id: string };

/** The seeded records of each resource, in creation order. */
export interface Seeded {
  readonly products: readonly Doc[];
  readonly bookings: readonly Doc[];
  readonly orders: readonly Doc[];
  readonly serviceCharges: readonly Doc[];
  readonly subscriptions: readonly Doc[];
  /** Records that were created and then soft-deleted (resource name → ids). */
  readonly deleted: Readonly<Record<string, readonly string[]>>;
}

/** The resources seeded for list tests; a token needs their CRUD capabilities. */
export const listResources = ['products', 'bookings', 'orders', 'service-charges', 'subscriptions'] as const;

const pad = (n: number): string => String(n).padStart(2, '0');
const day = (base: string, offsetDays: number, hour = 10): string => {
  const at = new Date(`${base}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + offsetDays);
  at.setUTCHours(hour);
  return at.toISOString();
};

/** Body of the i-th seeded product: varied names, cities, counts, states and flags. */
export function productBody(i: number): Record<string, unknown> {
  return {
    name: `${['Loft', 'Lodge', 'loft', 'Cabin', 'Suite'][i % 5]} ${pad(i)}`,
    address: `Main St ${i}`,
    city: ['Berlin', 'Hamburg', 'Munich'][i % 3],
    zip_code: `1${pad(i)}00`,
    // 7 and 30 are coprime: every count 0..29 occurs once, in scrambled order.
    total_items: (i * 7) % 30,
    status: i % 4 === 0 ? 'maintenance' : 'active',
    is_published: i % 2 === 0,
    ...(i % 5 === 0 ? {} : { country: 'DE' }),
  };
}

async function post(h: Harness, token: string, resource: string, body: Record<string, unknown>): Promise<Doc> {
  const response = await h.request({ method: 'POST', url: `/v1/${resource}/`, token, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Doc;
}

async function remove(h: Harness, token: string, resource: string, body: Record<string, unknown>): Promise<string> {
  const created = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body });
  const id = String((created.json() as Doc)._id);
  const deleted = await h.request({ method: 'DELETE', url: `/v1/${resource}/${id}`, token, headers: { 'if-match': String(created.headers.etag) } });
  expect(deleted.statusCode).toBe(204);
  return id;
}

/**
 * Seeds `count` records of each list resource through the API, one after another (so
 * creation order is the `created_at` order under a stepping clock), plus a soft-deleted
 * product and booking whose values would match most filters.
 */
export async function seedLists(h: Harness, token: string, count = 30): Promise<Seeded> {
  const products: Doc[] = [];
  for (let i = 0; i < count; i += 1) products.push(await post(h, token, 'products', productBody(i)));
  // Bookings need a product that takes them (active, room for four units): of the first
  // ten, 0, 4 and 8 are in maintenance and 9 has three units.
  const bookable = [1, 2, 3, 5, 6, 7];
  const productOf = (i: number): string => products[bookable[i % bookable.length] ?? 1]?._id ?? '';
  const bookings: Doc[] = [];
  const orders: Doc[] = [];
  const serviceCharges: Doc[] = [];
  const subscriptions: Doc[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = day('2026-01-01', i);
    bookings.push(
      await post(h, token, 'bookings', {
        product_id: productOf(i),
        start_time: start,
        end_time: day('2026-01-01', i + 1 + (i % 3)),
        status: i % 3 === 0 ? 'cancelled' : 'active',
        quantity: 1 + (i % 4),
        ...(i % 2 === 1 ? { reference: `REF-${pad(i)}` } : {}),
      }),
    );
    orders.push(
      await post(h, token, 'orders', {
        product_id: productOf(i),
        start_time: day('2026-03-01', i, i % 24),
        end_time: day('2026-03-01', i, (i % 24) + 2),
        status: ['active', 'confirmed', 'cancelled', 'completed'][i % 4],
        total_amount: i * 10.5,
      }),
    );
    serviceCharges.push(await post(h, token, 'service-charges', { product_id: productOf(i), name: `Fee ${pad(i)}`, amount: i * 2.5 }));
    subscriptions.push(
      await post(h, token, 'subscriptions', {
        product_id: productOf(i),
        plan: i % 2 === 0 ? 'basic' : 'pro',
        ...(i % 3 === 0 ? {} : { valid_until: day('2026-06-01', i % 28, 0) }),
      }),
    );
  }
  const deleted = {
    products: [await remove(h, token, 'products', { ...productBody(0), name: 'Loft 00' })],
    bookings: [await remove(h, token, 'bookings', { product_id: productOf(0), start_time: day('2026-01-01', 0), end_time: day('2026-01-01', 1) })],
  };
  return { products, bookings, orders, serviceCharges, subscriptions, deleted };
}

/** Ids of `docs` matching `predicate`, in the given order. */
export function idsWhere(docs: readonly Doc[], predicate: (doc: Doc) => boolean): string[] {
  return docs.filter(predicate).map((doc) => doc._id);
}

/** A list response's item ids, in order. */
export function itemIds(body: unknown): string[] {
  return ((body as { items: Doc[] }).items ?? []).map((item) => item._id);
}
