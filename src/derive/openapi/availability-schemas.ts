import { getResource } from '../../registry/index.js';
import { listParameters } from './list-parameters.js';
import { queryParameters } from './query-parameters.js';
import { resourceSchemas, schemaName } from './resource-schemas.js';
import { ref } from './types.js';
import type { OpenApiObject, Schema } from './types.js';

const products = getResource('products');

const boundText = "A date `YYYY-MM-DD` (midnight in the product's `time_zone`) or an ISO 8601 timestamp with a zone (`2030-03-31T10:00:00Z`).";

/** `from` and `to` of both availability operations; the search checks them with the same format. */
const rangeProperties: Readonly<Record<string, Schema>> = {
  from: { type: 'string', format: 'date-or-date-time', examples: ['2030-03-31', '2030-03-31T10:00:00Z'] },
  to: { type: 'string', format: 'date-or-date-time', examples: ['2030-04-07'] },
};
const rangeDescriptions = {
  from: `Start of the range (inclusive). ${boundText}`,
  to: `End of the range (exclusive), after \`from\`. ${boundText}`,
  granularity: "Local calendar days (at most 366 slots) or local clock hours (at most 744 slots) of the product's time zone.",
};

/**
 * The query of `GET /v1/products/{id}/availability`, enforced by the action executor. What
 * it cannot say is the service's: `to` after `from` in the product's zone, the slot limits.
 */
export const productAvailabilityQuery: Schema = {
  type: 'object',
  properties: { ...rangeProperties, granularity: { type: 'string', enum: ['day', 'hour'], default: 'day' } },
  required: ['from', 'to'],
  additionalProperties: false,
};

/** Query parameters of `GET /v1/products/{id}/availability`: the properties of its query schema. */
export const productAvailabilityParameters: readonly OpenApiObject[] = [ref('parameters', 'id'), ...queryParameters(productAvailabilityQuery, rangeDescriptions)];

/** `from` and `to` of both availability operations. */
export const rangeParameters: readonly OpenApiObject[] = productAvailabilityParameters.filter((parameter) => parameter.name === 'from' || parameter.name === 'to');

/** Query parameters of `GET /v1/availability`: the range, `quantity`, and the products list language. */
export const searchParameters: readonly OpenApiObject[] = [
  ...rangeParameters,
  { name: 'quantity', in: 'query', description: 'Units that must be free at every instant of the range.', schema: { type: 'integer', minimum: 1, maximum: 10_000, default: 1 } },
  ...listParameters(products),
];

const instant = { type: 'string', format: 'date-time' };

/** The answer of `GET /v1/products/{id}/availability`. */
export const productAvailabilitySchema: Schema = {
  type: 'object',
  properties: {
    product_id: { type: 'string' },
    total_items: { type: 'integer', minimum: 0 },
    time_zone: { type: 'string', description: "The product's IANA time zone; slots are its local days or hours." },
    from: { ...instant, description: 'Start of the first slot (the local boundary at or before the requested `from`).' },
    to: { ...instant, description: 'End of the last slot (the local boundary at or after the requested `to`).' },
    granularity: { type: 'string', enum: ['day', 'hour'] },
    slots: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          start: instant,
          end: instant,
          booked: { type: 'integer', minimum: 0, description: 'The most units held at any instant of the slot.' },
          available: { type: 'integer', minimum: 0, description: '`max(0, total_items − booked)`; 0 while the product is in maintenance or retired.' },
        },
        required: ['start', 'end', 'booked', 'available'],
      },
    },
  },
  required: ['product_id', 'total_items', 'time_zone', 'from', 'to', 'granularity', 'slots'],
};

const availableProperty = { type: 'integer', minimum: 0, description: 'The fewest units free at any instant of the range (0 in maintenance or retired).' };

/** What a search item's `price` is: the stay's price, not the product's unit price (docs/selling.md "Quotes"). */
const stayPriceProperty = {
  type: ['object', 'null'],
  description: 'What the stay costs at `quantity` units over the range, as an order would charge it; null for a product without a price.',
  properties: { total: { type: 'number' }, currency: { type: 'string' } },
  required: ['total', 'currency'],
};

/** A products list item whose `price` is the stay's, with `available`. */
function searchItem(): Schema {
  const listItem = resourceSchemas(products)[schemaName(products, 'ListItem')] as Schema;
  return {
    ...listItem,
    properties: { ...(listItem.properties as object), price: stayPriceProperty, available: availableProperty },
    required: ['_id', 'available', 'price'],
  };
}

/** The answer of `GET /v1/availability`: a products list page whose items carry `available` and the stay's `price`. */
export const searchSchema: Schema = {
  type: 'object',
  description: 'One page of products free for the range.',
  properties: {
    items: { type: 'array', items: searchItem() },
    total: { type: 'integer', minimum: 0, description: 'Number of matching products.' },
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
  },
  required: ['items', 'total', 'page', 'per_page'],
};

/** {@link searchSchema} as a serialiser schema: the products list item plus `available`. */
export function searchSerializerSchema(listItem: Schema): Schema {
  const price = { type: ['object', 'null'], properties: { total: { type: 'number' }, currency: { type: 'string' } } };
  const item = { ...listItem, properties: { ...(listItem.properties as object), available: { type: 'integer' }, price } };
  return { type: 'object', properties: { items: { type: 'array', items: item }, total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' } }, additionalProperties: false };
}
