import { productAvailabilityQuery, productAvailabilitySchema, productAvailabilityParameters, searchParameters, searchSchema, searchSerializerSchema } from '../derive/openapi/availability-schemas.js';
import { problems } from '../derive/openapi/problems.js';
import { schemaName } from '../derive/openapi/resource-schemas.js';
import { listHeaders } from '../derive/openapi/headers.js';
import { serializerSchema } from '../derive/response-serializers.js';
import { getResource } from '../registry/index.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef } from './action.js';

const products = getResource('products');

/** `GET /v1/products/{id}/availability`: booked and free units per local day or hour. */
export const productAvailabilityAction: ActionDef = {
  resource: 'products',
  name: 'availability',
  method: 'GET',
  path: '/v1/products/:id/availability',
  capability: 'products:read',
  rateLimitGroup: 'reads',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'read_product_availability',
    summary: "A product's availability per local day or hour",
    tags: ['products'],
    description:
      "Slots are the local days (23 or 25 hours across a daylight-saving change) or clock hours of the product's `time_zone`, covering `[from, to)` from the boundary at or before `from` to the one at or after `to`. `booked` counts the bookings of every tenant that hold units (`active`, `completed`); a product in `maintenance` or `retired` offers 0. 404 for a product outside the caller's reach, as when reading it.",
    parameters: [...productAvailabilityParameters],
    responses: {
      200: { description: 'The slots.', content: { 'application/json': { schema: productAvailabilitySchema } } },
      ...problems('400', '404'),
    },
  },
  schemas: { query: productAvailabilityQuery, response: { 200: productAvailabilitySchema } },
};

/** `GET /v1/availability`: the products free for a range, filtered, sorted and paged like their list. */
export const searchAvailabilityAction: ActionDef = {
  resource: 'products',
  name: 'search-availability',
  method: 'GET',
  path: '/v1/availability',
  capability: 'products:list',
  rateLimitGroup: 'reads',
  authentication: 'client',
  stepUp: false,
  openapi: {
    operationId: 'search_availability',
    summary: 'Products with free units over a range',
    tags: ['products'],
    description:
      "The products in the caller's reach (an end user's: published ones) matching the products list query (`where`, field filters, `sort`, `fields`, paging) that have at least `quantity` units free at every instant of `[from, to)`; a date means midnight in each product's own `time_zone`. Each item carries `available`, the fewest units free over the range. The range spans at most 366 days.",
    parameters: [...searchParameters],
    responses: {
      200: {
        description: 'One page of products.',
        headers: listHeaders(),
        content: { 'application/json': { schema: searchSchema } },
      },
      ...problems('400'),
    },
  },
  // The list language on products plus the range, parsed (and unknown names refused) by `parseSearch`.
  schemas: { query: queryParsedByHandler, response: { 200: searchSerializerSchema(serializerSchema(schemaName(products, 'ListItem'))) } },
};

/** Both availability operations (docs/availability.md "A product's slots" and "Searching for free products"). */
export const availabilityActions: readonly ActionDef[] = [productAvailabilityAction, searchAvailabilityAction];
