import { productHooks } from '../booking/booking-hooks.js';
import type { Row } from '../data/record-codec.js';
import { ApiError, validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { HookContext, ResourceHooks } from '../services/resource-hooks.js';
import { tenantCurrencyHooks } from '../services/hooks/tenant-currency.js';
import { amountProblem, percentProblem } from '../lib/money.js';

const products = getResource('products');
const serviceCharges = getResource('service-charges');

/** 400 listing each amount finer than its currency allows (docs/selling.md "Money"). */
function assertAmounts(checks: readonly { field: string; problem: string | undefined }[]): void {
  const errors: FieldError[] = checks.flatMap(({ field, problem }) => (problem ? [{ field, message: problem }] : []));
  if (errors.length > 0) throw validationError(errors);
}

/**
 * Products: `currency` defaults to the tenant's; `price` may not be finer than it; and a
 * product's charges stay in its currency, so changing the currency of a product that has
 * charges in the old one is 409 `currency_mismatch`. Lowering `total_items` is the booking
 * invariant's (`productHooks`).
 */
export const productPriceHooks: ResourceHooks = {
  ...productHooks,
  async beforeCreate(hook, draft) {
    const defaulted = (await tenantCurrencyHooks.beforeCreate?.(hook, draft)) ?? draft;
    const { price, currency } = defaulted.values;
    if (price !== null && price !== undefined) assertAmounts([{ field: 'price', problem: amountProblem(price, String(currency)) }]);
    return defaulted;
  },
  async beforeUpdate(hook, merged, changes, previous) {
    await productHooks.beforeUpdate?.(hook, merged, changes, previous);
    if (merged.price !== null && merged.price !== undefined && ('price' in changes || 'currency' in changes))
      assertAmounts([{ field: 'price', problem: amountProblem(merged.price, String(merged.currency)) }]);
    if (!('currency' in changes) || changes.currency === previous.currency) return;
    const other = await hook.unit
      .asSystem()
      .scoped(serviceCharges)
      .select(['_id', 'currency'])
      .where('product_id', '=', String(merged._id))
      .where('currency', '!=', String(merged.currency))
      .executeTakeFirst();
    if (other) throw mismatch(String(other._id), String(other.currency), String(merged.currency));
  },
  updateConflicts: [...(productHooks.updateConflicts ?? []), 'currency_mismatch'],
};

/**
 * Service charges: `currency` defaults to the product's and must equal it (409
 * `currency_mismatch`); `amount` is a percent (0–100, at most 4 decimals) for
 * `percent_of_rent`, else an amount no finer than the currency.
 */
export const serviceChargePriceHooks: ResourceHooks = {
  updateConflicts: ['currency_mismatch'],
  async beforeCreate(hook, draft) {
    const product = await productOf(hook, draft.values.product_id);
    if (!product) return draft; // the reference check answers 400
    const productCurrency = String(product.currency ?? 'EUR');
    const values = { ...draft.values, currency: draft.values.currency ?? productCurrency };
    check(values, productCurrency, draft.id);
    return { ...draft, values };
  },
  async beforeUpdate(hook, merged) {
    const product = await productOf(hook, merged.product_id);
    if (product) check(merged, String(product.currency ?? 'EUR'), String(merged._id));
  },
};

async function productOf(hook: HookContext, id: unknown): Promise<Row | undefined> {
  return typeof id === 'string' ? hook.unit.asSystem().find(products, id) : undefined;
}

function check(charge: Readonly<Record<string, unknown>>, productCurrency: string, id: string): void {
  const currency = String(charge.currency);
  if (currency !== productCurrency) throw mismatch(id, currency, productCurrency);
  const percent = charge.basis === 'percent_of_rent';
  assertAmounts([{ field: 'amount', problem: percent ? percentProblem(charge.amount) : amountProblem(charge.amount, currency) }]);
}

function mismatch(chargeId: string, currency: string, productCurrency: string): ApiError {
  return new ApiError('currency_mismatch', `The service charge is in ${currency}, its product in ${productCurrency}: a product's charges share its currency`, {
    extensions: { service_charge_id: chargeId, currency, product_currency: productCurrency },
  });
}
