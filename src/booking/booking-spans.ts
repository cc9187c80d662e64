import type { ScopedSelect } from '../data/scoped-queries.js';
import type { Db } from '../db/dialect.js';
import type { Row } from '../data/record-codec.js';

/** A booking lasts at most this long (docs/bookings.md "Time ranges"): the look-back of a product with no recorded span. */
export const maxBookingMs = 366 * 24 * 60 * 60 * 1000;

/**
 * How far back the holdings query must look for bookings overlapping a range: the longest
 * booking each product has had (table `product_booking_spans`), not the 366 days any
 * booking may last. Bookings of a popular product are short; reading a year of them for a
 * seven-day question cost more than everything else in an availability search.
 *
 * Safe by construction: a span is recorded (and only ever grows) in the same transaction
 * and under the same product lock as the capacity check that lets a booking hold units, so
 * no committed holding booking is longer than its product's recorded span. A product
 * without a row gets the full 366 days: either it has no booking (then the scan finds
 * nothing and costs nothing) or its bookings did not come through that check (loaded in
 * bulk), and the answer stays right, only slower.
 */
export async function lookbacks(db: Db, productIds: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (productIds.length === 0) return found;
  const rows = await db
    .selectFrom('product_booking_spans')
    .select(['product_id', 'longest_ms'])
    .where('product_id', 'in', [...productIds])
    .execute();
  for (const row of rows) found.set(String(row.product_id), Number(row.longest_ms));
  return new Map(productIds.map((id) => [id, found.get(id) ?? maxBookingMs]));
}

/** The column {@link withLongestBooking} adds to each product row. */
const longestColumn = 'longest_booking_ms';

/**
 * A scoped select of products that also reads each product's recorded span (a left join on
 * its primary key), so a read that needs both costs one query instead of two.
 */
export function withLongestBooking(products: ScopedSelect): ScopedSelect {
  return products.selectAll('products').leftJoin('product_booking_spans', 'product_booking_spans.product_id', 'products._id').select(`product_booking_spans.longest_ms as ${longestColumn}`);
}

/** The look-back of a row read {@link withLongestBooking}: its recorded span, else the 366 days. */
export function lookbackOf(row: Row): number {
  const longest = row[longestColumn];
  return longest === null || longest === undefined ? maxBookingMs : Number(longest);
}

/** Records that `productId` now has a booking lasting `spanMs` (call under the product's lock). */
export async function recordSpan(db: Db, productId: string, spanMs: number): Promise<void> {
  await db
    .insertInto('product_booking_spans')
    .values({ product_id: productId, longest_ms: spanMs })
    .onConflict((conflict) => conflict.column('product_id').doUpdateSet({ longest_ms: spanMs }).where('product_booking_spans.longest_ms', '<', spanMs))
    .execute();
}
