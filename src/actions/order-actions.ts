import { problems } from '../derive/openapi/problems.js';
import { schemaName } from '../derive/openapi/resource-schemas.js';
import { ref } from '../derive/openapi/types.js';
import type { Schema } from '../derive/openapi/types.js';
import { serializerSchema } from '../derive/response-serializers.js';
import { getResource } from '../registry/index.js';
import { orderLinesShape } from '../registry/resources/orders.js';
import type { ActionDef } from './action.js';

const orders = getResource('orders');

/** The body of `POST /v1/quotes`: a stay of a product. */
const quoteBody: Schema = {
  type: 'object',
  required: ['product_id', 'start_time', 'end_time'],
  additionalProperties: false,
  properties: {
    product_id: { type: 'string', minLength: 1, maxLength: 200 },
    start_time: { type: 'string', format: 'date-time' },
    end_time: { type: 'string', format: 'date-time', description: 'After `start_time`, at most 366 days later.' },
    quantity: { type: 'integer', minimum: 1, maximum: 10_000, default: 1 },
  },
};

/** A quote as answered. */
export const quoteSchema: Schema = {
  type: 'object',
  required: ['quote_id', 'product_id', 'start_time', 'end_time', 'quantity', 'currency', 'periods', 'lines', 'total', 'expires_at'],
  properties: {
    quote_id: { type: 'string', maxLength: 200, description: 'Opaque; `POST /v1/orders` with `{ "quote_id" }` orders exactly these lines and total until `expires_at`.' },
    product_id: { type: 'string' },
    start_time: { type: 'string', format: 'date-time' },
    end_time: { type: 'string', format: 'date-time' },
    quantity: { type: 'integer' },
    currency: { type: 'string', description: "The product's ISO 4217 code." },
    periods: { type: 'integer', description: "Nights, days or hours of the stay (the product's `price_unit`)." },
    lines: orderLinesShape,
    total: { type: 'number', description: 'The sum of the lines.' },
    expires_at: { type: 'string', format: 'date-time', description: '15 minutes after the quote.' },
  },
};

/** `POST /v1/quotes`: the price of a stay, kept 15 minutes for an order; nothing held. */
export const quoteAction: ActionDef = {
  resource: 'orders',
  name: 'quote',
  method: 'POST',
  path: '/v1/quotes',
  capability: 'orders:quote',
  rateLimitGroup: 'writes',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'create_quote',
    summary: 'Price a stay of a product',
    tags: ['orders'],
    description:
      'The lines (rent per period at the rate covering its local date, then every service charge) and total of a stay, refused exactly as an order would be. The quote stands 15 minutes on every instance; it holds no units (docs/selling.md "Quotes").',
    requestBody: { required: true, content: { 'application/json': { schema: quoteBody } } },
    responses: {
      200: { description: 'The quote.', content: { 'application/json': { schema: quoteSchema } } },
      ...problems('400', '404', '409'),
    },
  },
  schemas: { body: quoteBody, response: { 200: quoteSchema } },
};

/** `POST /v1/orders/{id}/confirm`: a payment taken elsewhere. */
export const confirmOrderAction: ActionDef = {
  resource: 'orders',
  name: 'confirm',
  method: 'POST',
  path: '/v1/orders/:id/confirm',
  capability: 'orders:confirm',
  rateLimitGroup: 'writes',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'confirm_order',
    summary: 'Confirm an order paid elsewhere',
    tags: ['orders'],
    description:
      'The payment rules without the amount comparison (docs/selling.md "Payment"): a live hold is confirmed; an expired one is confirmed late when its units are still free, else the order becomes `refund_required` (answered 200 with that order). An order already `confirmed` answers 200 unchanged; a `cancelled` or `refund_required` one 409 `invalid_transition`.',
    parameters: [ref('parameters', 'id'), ref('parameters', 'IfMatch')],
    responses: {
      200: { description: 'The order after the confirm.', headers: { ETag: ref('headers', 'ETag') }, content: { 'application/json': { schema: ref('schemas', schemaName(orders, 'Record')) } } },
      ...problems('400', '404', '409', '412', '428'),
    },
  },
  schemas: { response: { 200: serializerSchema(schemaName(orders, 'Record')) } },
};

/** The selling operations beyond the orders' CRUD (docs/selling.md). */
export const orderActions: readonly ActionDef[] = [quoteAction, confirmOrderAction];
