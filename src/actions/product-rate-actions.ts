import { listHeaders } from '../derive/openapi/headers.js';
import { listParameters } from '../derive/openapi/list-parameters.js';
import { problems } from '../derive/openapi/problems.js';
import { ref } from '../derive/openapi/types.js';
import type { OpenApiObject } from '../derive/openapi/types.js';
import { productRates } from '../registry/sub-collections/product-rates.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef } from './action.js';
import { headerRefs, json, productSubAction, subCollectionParts } from './sub-collection.js';

/*
 * The rates of a product (docs/selling.md "Rates"): a sub-collection at
 * `/v1/products/{id}/rates[/{rate_id}]` with the product's capabilities, `products:read` to
 * read and `products:update` to write. The rate is not one of the service's resources, so
 * its schemas are printed inline (the document's components hold the resources' only).
 */

const { record, createBody, updateBody, list, bodyMembers } = subCollectionParts(productRates, 'a rate');

const id = ref('parameters', 'id');
const rateId: OpenApiObject = { name: 'rate_id', in: 'path', required: true, description: 'The rate (`_id`).', schema: { type: 'string', minLength: 1, maxLength: 200 } };
const ifMatch = ref('parameters', 'IfMatch');
const headers = headerRefs;

const rules =
  "A rate covers the product's local dates `[from, to)` (`to` exclusive, at most 2 years after `from`); two live rates of one product may not share a date (409 `rate_overlap` naming the other rate in `rate_id`), touching ranges do not. `price` is in the product's `currency`, with no more decimals than it has; `min_stay` may not exceed `max_stay`.";

const collection = '/v1/products/:id/rates';
const item = `${collection}/:rate_id`;
const notFoundNote = "404 for a product outside the caller's reach (another tenant's, deleted), as reading it would be, and for a rate of another product.";

/** The five operations of a product's rates (docs/selling.md "Rates"); handlers in `src/handlers/product-rate-handlers.ts`. */
export const productRateActions: readonly ActionDef[] = [
  productSubAction(
    'rates-list',
    'GET',
    collection,
    {
      operationId: 'list_product_rates',
      summary: "A product's rates",
      description: `The full list query language (\`where\`, field filters, \`sort\`, \`fields\`, paging) over the rate fields; the default sort is \`from\`. ${notFoundNote}`,
      parameters: [id, ...listParameters(productRates)],
      responses: { 200: { description: 'One page of rates.', headers: listHeaders(), content: json(list) }, ...problems('400', '404') },
    },
    // The list language, parsed (and unknown names refused) by the handler.
    { query: queryParsedByHandler },
  ),
  productSubAction(
    'rates-create',
    'POST',
    collection,
    {
      operationId: 'create_product_rate',
      summary: 'Add a rate to a product',
      description: `${rules} Written with its audit entry and \`product-rates.created\` event in one transaction, under the product's lock. ${notFoundNote}`,
      parameters: [id],
      requestBody: { required: true, content: json(createBody) },
      responses: { 201: { description: 'The rate, with its ETag.', headers: headers('ETag', 'Location'), content: json(record) }, ...problems('400', '404', '409', '413', '415') },
    },
    { body: createBody, unknownMembers: bodyMembers },
  ),
  productSubAction('rates-read', 'GET', item, {
    operationId: 'read_product_rate',
    summary: 'Read a rate of a product',
    description: notFoundNote,
    parameters: [id, rateId],
    responses: { 200: { description: 'The rate.', headers: headers('ETag'), content: json(record) }, ...problems('400', '404') },
  }),
  productSubAction(
    'rates-update',
    'PATCH',
    item,
    {
      operationId: 'update_product_rate',
      summary: 'Change a rate of a product',
      description: `Only the fields to change; the rate as changed is checked whole (excluding itself). ${rules} Needs the current ETag in \`If-Match\`. ${notFoundNote}`,
      parameters: [id, rateId, ifMatch],
      requestBody: { required: true, content: json(updateBody) },
      responses: { 200: { description: 'The changed rate, with its new ETag.', headers: headers('ETag'), content: json(record) }, ...problems('400', '404', '409', '412', '413', '415', '428') },
    },
    { body: updateBody, unknownMembers: bodyMembers },
  ),
  productSubAction('rates-delete', 'DELETE', item, {
    operationId: 'delete_product_rate',
    summary: 'Remove a rate of a product',
    description: `Soft delete, under the product's lock; the audit trail keeps a full snapshot. Needs the current ETag in \`If-Match\`; refused (409) while a legal hold covers the rate. ${notFoundNote}`,
    parameters: [id, rateId, ifMatch],
    responses: { 204: { description: 'Deleted.' }, ...problems('400', '404', '409', '412', '428') },
  }),
];
