/**
 * The rules of a product's rates (docs/selling.md "Rates"), as resource hooks of
 * `product-rates`: they run inside the write's transaction, so the HTTP API, the CLI and
 * every later caller get them, and a refused write leaves no audit entry and no event.
 */
import { lockedProduct } from '../booking/booking-hooks.js';
import { pathParentOf } from '../services/path-parent.js';
import type { Row } from '../data/record-codec.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { productRates } from '../registry/sub-collections/product-rates.js';
import type { ResourceHooks } from '../services/resource-hooks.js';
import { amountProblem } from '../lib/money.js';

/**
 * The product of the path, locked for the rest of the transaction: every write of one
 * product's rates takes this lock first, so they run one at a time and the overlap check
 * reads what the previous one committed (on PostgreSQL across instances; SQLite has one
 * writer anyway). A product outside the caller's reach (another tenant's, deleted) is a
 * 404, as reading it would be; a rate of another product is not found under this one.
 */
async function pathProduct(unit: UnitOfWork, values: Readonly<Record<string, unknown>>): Promise<Row> {
  const id = pathParentOf(unit.context);
  if (id === undefined) throw new Error('product rates are written through /v1/products/{id}/rates (withPathParent)');
  const product = await lockedProduct(unit, id);
  if (!product) throw notFound('products');
  if (values.product_id !== undefined && values.product_id !== id) throw notFound(productRates.name);
  return product;
}

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as epoch ms of its UTC midnight, or `undefined` for text that is no calendar date (`2030-02-30`). */
function calendarDate(value: unknown): number | undefined {
  const match = typeof value === 'string' ? datePattern.exec(value) : null;
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const at = Date.UTC(year, month - 1, day);
  const date = new Date(at);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? at : undefined;
}

/** The same month and day `years` later; 29 February becomes 28 February of a common year (calendar years, not 730 days). */
function yearsLater(at: number, years: number): number {
  const date = new Date(at);
  const year = date.getUTCFullYear() + years;
  const lastDay = new Date(Date.UTC(year, date.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(year, date.getUTCMonth(), Math.min(date.getUTCDate(), lastDay));
}

/** The longest span of one rate: `to` at most this many calendar years after `from`. */
const maxRateYears = 2;

/** What is wrong with a rate's own values, each naming its field (docs/selling.md "Rates"). */
function valueErrors(product: Row, rate: Readonly<Record<string, unknown>>): FieldError[] {
  const errors: FieldError[] = [];
  const from = calendarDate(rate.from);
  const to = calendarDate(rate.to);
  if (from === undefined) errors.push({ field: 'from', message: 'must be a calendar date (YYYY-MM-DD)' });
  if (to === undefined) errors.push({ field: 'to', message: 'must be a calendar date (YYYY-MM-DD)' });
  if (from !== undefined && to !== undefined) {
    // `to` is exclusive: a rate covers at least one date.
    if (to <= from) errors.push({ field: 'to', message: 'must be after from' });
    else if (to > yearsLater(from, maxRateYears)) errors.push({ field: 'to', message: `must be at most ${maxRateYears} years after from` });
  }
  if (typeof rate.min_stay === 'number' && typeof rate.max_stay === 'number' && rate.min_stay > rate.max_stay) errors.push({ field: 'min_stay', message: 'must not exceed max_stay' });
  if (rate.price !== null && rate.price !== undefined) {
    // The rate's price is in the product's currency, with no more decimals than it has (JPY none, EUR 2).
    const currency = product.currency;
    const problem = typeof currency === 'string' ? amountProblem(rate.price, currency) : "needs the product's currency, and the product has none";
    if (problem !== undefined) errors.push({ field: 'price', message: problem });
  }
  return errors;
}

/**
 * Two live rates of one product may not share a date: the first other rate (by `from`,
 * then id) over `[from, to)` is a 409 `rate_overlap` naming it. Touching ranges do not
 * overlap (`to` is exclusive). Read without the caller's tenant filter because the rule is
 * the product's, like its capacity; every rate of a product is its tenant's, which the
 * caller reaches since it reaches the product.
 */
async function assertNoOverlap(unit: UnitOfWork, productId: string, from: string, to: string, self: string | undefined): Promise<void> {
  let query = unit.asSystem().scoped(productRates).select(['_id', 'from', 'to']).where('product_id', '=', productId).where('from', '<', to).where('to', '>', from);
  if (self !== undefined) query = query.where('_id', '!=', self);
  const other = (await query.orderBy('from').orderBy('_id').limit(1).executeTakeFirst()) as Row | undefined;
  if (!other) return;
  const id = String(other._id);
  throw new ApiError('rate_overlap', `The rate ${id} of the product already covers ${String(other.from)} to ${String(other.to)} (exclusive)`, { extensions: { rate_id: id } });
}

/** Checks a rate as it would be stored (created, or merged with its changes), excluding the rate itself. */
async function checkRate(unit: UnitOfWork, product: Row, rate: Readonly<Record<string, unknown>>, self: string | undefined): Promise<void> {
  const errors = valueErrors(product, rate);
  if (errors.length > 0) throw validationError(errors);
  await assertNoOverlap(unit, String(product._id), String(rate.from), String(rate.to), self);
}

/**
 * The hooks of `product-rates` (docs/selling.md "Rates"): every write locks the path's
 * product first; a create takes `product_id` from the path and belongs to the product's
 * tenant; creates and updates are checked whole (dates, 2 years at most, stays, the price's
 * decimals, no shared date with another rate). A delete needs nothing beyond the lock.
 */
export const productRateHooks: ResourceHooks = {
  updateConflicts: ['rate_overlap'],
  async lock(hook, values) {
    await pathProduct(hook.unit, values);
  },
  async ownerTenant(hook) {
    const product = await pathProduct(hook.unit, {});
    return (product.tenant_id as string | null | undefined) ?? null;
  },
  async beforeCreate(hook, draft) {
    const product = await pathProduct(hook.unit, {});
    const values = { ...draft.values, product_id: String(product._id) };
    await checkRate(hook.unit, product, values, undefined);
    return { ...draft, values };
  },
  async beforeUpdate(hook, merged) {
    const product = await pathProduct(hook.unit, merged);
    await checkRate(hook.unit, product, merged, String(merged._id));
  },
};
