import type { ActionInput } from '../actions/action.js';
import type { RequestContext } from '../core/request-context.js';
import { notFound } from '../http/errors.js';
import { pathId } from '../http/path-id.js';
import { combine } from '../query/filter-ast.js';
import type { FilterNode } from '../query/filter-ast.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { getResource } from '../registry/index.js';
import { productRates } from '../registry/sub-collections/product-rates.js';
import { withPathParent } from '../services/path-parent.js';
import type { ResourceService } from '../services/resource-service.js';
import type { Handlers } from './handler.js';
import { pageAnswer } from './page-answer.js';

const products = getResource('products');

const productIdOf = (input: ActionInput) => pathId(input.params.id ?? '', 'products');

/** The rate named in the path; an implausible id (too long, control characters) is simply not found. */
function rateIdOf(input: ActionInput): string {
  const rateId = pathId(input.params.rate_id ?? '', productRates.name);
  if (rateId.length > 200) throw notFound(productRates.name);
  return rateId;
}

/** The path's product must be in the caller's reach: another tenant's or a deleted product is a 404, as reading it would be. */
async function assertProduct(resources: ResourceService, context: RequestContext, productId: string): Promise<void> {
  if (!(await resources.queries(context.principal).find(products, productId))) throw notFound('products');
}

/**
 * The path's rate must be a live rate of the path's product in reach, checked before a write
 * so that a rate of another product is a 404 whatever `If-Match` says (the write's hooks
 * check it again under the product's lock; a rate never changes product).
 */
async function assertRateOfProduct(resources: ResourceService, context: RequestContext, productId: string, rateId: string): Promise<void> {
  await assertProduct(resources, context, productId);
  const rate = await resources.queries(context.principal).find(productRates, rateId);
  if (rate?.product_id !== productId) throw notFound(productRates.name);
}

/**
 * The rates of a product (`src/actions/product-rate-actions.ts`; docs/selling.md "Rates"),
 * through the resource service with the `productRates` description, so ETags, audit entries,
 * events and the unit of work are every record's; the rules are the rate hooks'.
 */
export const productRateHandlers: Handlers = {
  'products.rates-list': async (input, { resources, origin }) => {
    const productId = productIdOf(input);
    await assertProduct(resources, input.context, productId);
    const query = parseListQuery(productRates, { sort: 'from', ...input.query });
    // The product's rates only: its condition joins the caller's filters (and the list's cached totals key on it).
    const ofProduct: FilterNode = { kind: 'cmp', field: 'product_id', op: '$eq', value: productId };
    const filter = combine('and', query.filter ? [ofProduct, query.filter] : [ofProduct]);
    const { items, total } = await resources.list(input.context, productRates, { ...query, filter });
    return pageAnswer({ items, total, page: query.page, per_page: query.perPage }, origin, input.url);
  },
  'products.rates-create': async (input, { resources, origin }) => {
    const productId = productIdOf(input);
    const { record, etag } = await resources.create(withPathParent(input.context, productId), productRates, input.body);
    return { status: 201, headers: { etag, location: `${origin}/v1/products/${encodeURIComponent(productId)}/rates/${String(record._id)}` }, body: record };
  },
  'products.rates-read': async (input, { resources }) => {
    const [productId, rateId] = [productIdOf(input), rateIdOf(input)];
    await assertProduct(resources, input.context, productId);
    const { record, etag } = await resources.read(input.context, productRates, rateId);
    if (record.product_id !== productId) throw notFound(productRates.name);
    return { status: 200, headers: { etag }, body: record };
  },
  'products.rates-update': async (input, { resources }) => {
    const [productId, rateId] = [productIdOf(input), rateIdOf(input)];
    await assertRateOfProduct(resources, input.context, productId, rateId);
    const { record, etag } = await resources.update(withPathParent(input.context, productId), productRates, rateId, input.ifMatch, input.body);
    return { status: 200, headers: { etag }, body: record };
  },
  'products.rates-delete': async (input, { resources }) => {
    const [productId, rateId] = [productIdOf(input), rateIdOf(input)];
    await assertRateOfProduct(resources, input.context, productId, rateId);
    await resources.remove(withPathParent(input.context, productId), productRates, rateId, input.ifMatch);
    return { status: 204 };
  },
};
