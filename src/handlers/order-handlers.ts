import { bookingPeriod } from '../booking/booking-hooks.js';
import { normaliseTimestamp } from '../core/timestamps.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import { pathId } from '../http/path-id.js';
import { getResource } from '../registry/index.js';
import { settleOrder } from '../selling/order-payment.js';
import { saveQuote } from '../selling/quotes.js';
import { assertFree, sellable } from '../selling/sale.js';
import type { Handlers } from './handler.js';

const orders = getResource('orders');
const products = getResource('products');

/** The body of `POST /v1/quotes`, as its schema let it through. */
interface QuoteBody {
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly quantity?: number;
}

/** Quotes, an order's create and confirm (`src/actions/order-actions.ts`, docs/selling.md). */
export const orderHandlers: Handlers = {
  'orders.quote': async (input, { resources }) => {
    const body = input.body as QuoteBody;
    const quote = await resources.work(input.context, async (unit) => {
      const product = await unit.find(products, body.product_id);
      if (!product) throw notFound(products.name);
      const times = { start_time: normaliseTimestamp(body.start_time) ?? body.start_time, end_time: normaliseTimestamp(body.end_time) ?? body.end_time };
      const period = bookingPeriod(times);
      if (!period) throw validationError([{ field: 'end_time', message: 'must be after start_time' }]);
      const stay = { ...period, quantity: body.quantity ?? 1 };
      const priced = await sellable(unit, product, stay);
      await assertFree(unit, product, stay);
      return saveQuote(unit.trx, unit.principal.scope.nodeId, { product_id: String(product._id), ...times, quantity: stay.quantity, ...priced }, unit.now);
    });
    return { status: 200, body: quote };
  },
  'orders.confirm': async (input, { resources }) => {
    const id = pathId(input.params.id ?? '', orders.name);
    const { record, etag } = await resources.act(input.context, orders, id, input.ifMatch, async (unit, order) => {
      const status = String(order.status);
      if (status === 'confirmed') return;
      if (status === 'cancelled' || status === 'refund_required' || status === 'completed') {
        throw new ApiError('invalid_transition', `A ${status} order cannot be confirmed`, { extensions: { from: status, to: 'confirmed', allowed: [] } });
      }
      await settleOrder(unit, order, null);
    });
    return { status: 200, headers: { etag }, body: record };
  },
};
