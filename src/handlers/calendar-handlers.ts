import type { ActionInput } from '../actions/action.js';
import { importOfProduct } from '../calendars/calendar-import-hooks.js';
import { notFound } from '../http/errors.js';
import { pathId } from '../http/path-id.js';
import { combine } from '../query/filter-ast.js';
import type { FilterNode } from '../query/filter-ast.js';
import { parseListQuery } from '../query/parse-list-query.js';
import { getResource } from '../registry/index.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { withPathParent } from '../services/path-parent.js';
import type { ActionServices, Handlers } from './handler.js';
import { pageAnswer } from './page-answer.js';

const products = getResource('products');

const productIdOf = (input: ActionInput) => pathId(input.params.id ?? '', products.name);
const importIdOf = (input: ActionInput) => pathId(input.params.import_id ?? '', calendarImports.name);

/** The path's import, a live import of the path's product in the caller's reach (404 otherwise). */
async function assertImport({ resources }: ActionServices, input: ActionInput): Promise<{ productId: string; importId: string }> {
  const [productId, importId] = [productIdOf(input), importIdOf(input)];
  const queries = resources.queries(input.context.principal);
  if (!(await queries.find(products, productId))) throw notFound(products.name);
  await importOfProduct(queries, productId, importId);
  return { productId, importId };
}

/** Calendars (`src/actions/calendar-actions.ts`, docs/calendars.md). */
export const calendarHandlers: Handlers = {
  'products.calendar-feed': async (input, { calendars }) => ({ status: 201, body: await calendars.rotate(input.context, productIdOf(input)) }),
  'products.calendar-feed-read': async (input, { calendars }) => ({ status: 200, body: await calendars.read(input.context, productIdOf(input)) }),
  'products.calendar-export': async (input, { calendars }) => {
    const file = input.params.file ?? '';
    const feed = file.endsWith('.ics') ? await calendars.feed(file.slice(0, -4)) : undefined;
    if (!feed) throw notFound('calendars');
    const headers = { etag: feed.etag, 'cache-control': 'private, no-cache' };
    const sent = input.headers?.['if-none-match'];
    const tags = (Array.isArray(sent) ? sent.join(',') : (sent ?? '')).split(',').map((tag) => tag.trim());
    if (tags.includes(feed.etag) || tags.includes('*')) return { status: 304, headers };
    return { status: 200, headers: { ...headers, 'content-type': 'text/calendar; charset=utf-8' }, body: feed.text };
  },
  'products.calendar-imports-list': async (input, { resources, origin }) => {
    const productId = productIdOf(input);
    if (!(await resources.queries(input.context.principal).find(products, productId))) throw notFound(products.name);
    const query = parseListQuery(calendarImports, input.query);
    const ofProduct: FilterNode = { kind: 'cmp', field: 'product_id', op: '$eq', value: productId };
    const filter = combine('and', query.filter ? [ofProduct, query.filter] : [ofProduct]);
    const { items, total } = await resources.list(input.context, calendarImports, { ...query, filter });
    return pageAnswer({ items, total, page: query.page, per_page: query.perPage }, origin, input.url);
  },
  'products.calendar-imports-create': async (input, { resources, calendars, origin }) => {
    const productId = productIdOf(input);
    const { record } = await resources.create(withPathParent(input.context, productId), calendarImports, input.body);
    const importId = String(record._id);
    // The first sync at once: the answer tells whether the feed works.
    await calendars.sync.sync(importId);
    const { record: synced, etag } = await resources.read(input.context, calendarImports, importId);
    return { status: 201, headers: { etag, location: `${origin}/v1/products/${encodeURIComponent(productId)}/calendar-imports/${importId}` }, body: synced };
  },
  'products.calendar-imports-read': async (input, services) => {
    const { importId } = await assertImport(services, input);
    const { record, etag } = await services.resources.read(input.context, calendarImports, importId);
    return { status: 200, headers: { etag }, body: record };
  },
  'products.calendar-imports-delete': async (input, services) => {
    const { productId, importId } = await assertImport(services, input);
    await services.resources.remove(withPathParent(input.context, productId), calendarImports, importId, input.ifMatch);
    return { status: 204 };
  },
  'products.calendar-imports-sync': async (input, services) => {
    const { importId } = await assertImport(services, input);
    await services.calendars.sync.sync(importId);
    const { record, etag } = await services.resources.read(input.context, calendarImports, importId);
    return { status: 200, headers: { etag }, body: record };
  },
};
