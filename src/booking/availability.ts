import type { QueryShape, ScopedQueries } from '../data/scoped-queries.js';
import { notFound, validationError } from '../http/errors.js';
import type { QueryString } from '../query/list-query.js';
import { getResource } from '../registry/index.js';
import { closedStatuses } from './booking-hooks.js';
import { parseRange, resolveBound } from './availability-range.js';
import { lookbackOf, withLongestBooking } from './booking-spans.js';
import { holdingsOf } from './holdings.js';
import { occupancy, slotPeaks } from './occupancy.js';
import type { Granularity } from './time-slots.js';
import { slotsCovering } from './time-slots.js';

const products = getResource('products');

/** Most slots one request may ask for (docs/availability.md "A product's slots"): a year of days, a month of hours. */
export const maxSlots: Readonly<Record<Granularity, number>> = Object.freeze({ day: 366, hour: 744 });

export interface AvailabilitySlot {
  readonly start: string;
  readonly end: string;
  readonly booked: number;
  readonly available: number;
}

/** The answer of `GET /v1/products/{id}/availability`. */
export interface ProductAvailability {
  readonly product_id: string;
  readonly total_items: number;
  readonly time_zone: string;
  readonly from: string;
  readonly to: string;
  readonly granularity: Granularity;
  readonly slots: AvailabilitySlot[];
}

/** A product row's time zone; a row written around the API without one is in UTC, the column's default. */
export function zoneOf(row: { readonly time_zone?: unknown }): string {
  return typeof row.time_zone === 'string' ? row.time_zone : 'UTC';
}

/** A product with its recorded span (one read per request), compiled once per scope. */
const productWithSpan: QueryShape = {
  values: 1,
  build: (queries, [id]) => withLongestBooking(queries.scoped(products)).where('products._id', '=', id as string),
};

/** Units a product offers: none while it takes no bookings (maintenance, retired). */
export function offeredUnits(row: { readonly status?: unknown; readonly total_items?: unknown }): number {
  return closedStatuses.includes(String(row.status)) ? 0 : Number(row.total_items);
}

/**
 * A product's availability per local day or hour: for each slot the most units its
 * bookings hold at any instant (`booked`) and what is left. The product is read in the
 * caller's scope (404 outside it); the holdings of every tenant count, as they do when
 * booking. One query for the product (with its recorded span), one for its holdings.
 *
 * `query` is checked against its schema (`productAvailabilityQuery`) by the action executor.
 *
 * @throws ApiError `validation_failed` (400), `not_found` (404)
 */
export async function productAvailability(queries: ScopedQueries, id: string, query: QueryString, now: number): Promise<ProductAvailability> {
  const granularity: Granularity = query.granularity === 'hour' ? 'hour' : 'day';
  const range = parseRange(query);
  const row = await queries.first(productWithSpan, [id]);
  if (!row) throw notFound(products.name);
  const zone = zoneOf(row);
  const from = resolveBound(zone, range.from);
  const to = resolveBound(zone, range.to);
  if (to <= from) throw validationError([{ field: 'to', message: `must be after from (in the product's time zone ${zone})` }]);
  const max = maxSlots[granularity];
  const slots = slotsCovering(zone, from, to, granularity, max);
  if (!slots) throw validationError([{ field: 'to', message: `the range spans more than ${max} ${granularity} slots` }]);
  const bounds = [...slots.map((slot) => slot.start), slots[slots.length - 1]?.end ?? to];
  const first = bounds[0] ?? from;
  const last = bounds[bounds.length - 1] ?? to;
  const peaks = slotPeaks(occupancy(await holdingsOf(queries.asSystem(), [id], first, last, now, new Map([[id, lookbackOf(row)]]))), bounds);
  const offered = offeredUnits(row);
  // A slot ends where the next begins: each boundary is formatted once.
  const iso = bounds.map((ms) => new Date(ms).toISOString());
  return {
    product_id: id,
    total_items: Number(row.total_items),
    time_zone: zone,
    from: iso[0] ?? new Date(first).toISOString(),
    to: iso[iso.length - 1] ?? new Date(last).toISOString(),
    granularity,
    slots: slots.map((_, k) => {
      const booked = peaks[k] ?? 0;
      return { start: iso[k] ?? '', end: iso[k + 1] ?? '', booked, available: Math.max(0, offered - booked) };
    }),
  };
}
