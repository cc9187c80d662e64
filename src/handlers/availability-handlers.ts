import { productAvailability } from '../booking/availability.js';
import { parseSearch, searchAvailability } from '../booking/availability-search.js';
import { pathId } from '../http/path-id.js';
import { keepFields } from '../query/keep-fields.js';
import { getResource } from '../registry/index.js';
import { searchPrices } from '../selling/search-prices.js';
import type { SearchPrices } from '../selling/search-prices.js';
import type { Handlers } from './handler.js';
import { pageAnswer } from './page-answer.js';

const products = getResource('products');

/** Both availability operations (`src/actions/availability-actions.ts`, docs/availability.md "A product's slots" and "Searching for free products"). */
export const availabilityHandlers: Handlers = {
  /** Booked and free units per local day or hour. */
  'products.availability': async (input, { resources }) => {
    const id = pathId(input.params.id ?? '', 'products');
    return { status: 200, body: await productAvailability(resources.queries(input.context.principal), id, input.query, resources.now()) };
  },
  /** The products free for a range, filtered, sorted and paged like their list, each with the stay's price (docs/selling.md). */
  'products.search-availability': async (input, { resources, origin }) => {
    const search = parseSearch(input.query);
    const { principal } = input.context;
    const queries = resources.queries(principal);
    let priced: SearchPrices | undefined;
    const found = await searchAvailability(queries, search, resources.now(), async (free, quantity) => {
      priced = await searchPrices(queries, free, quantity);
      return priced.refused;
    });
    const records = await resources.presentMany(products, principal, found.rows);
    // The records are this request's own: narrowed and extended in place, as the list does
    // (a copy per item, `{ ...record, available }`, was slower to make and to serialise).
    // `_id` is always among the kept fields.
    keepFields(records, search.list.fields);
    for (const record of records) {
      record.available = found.available.get(String(record._id)) ?? 0;
      record.price = priced?.prices.get(String(record._id)) ?? null;
    }
    const { page, perPage } = search.list;
    return pageAnswer({ items: records, total: found.total, page, per_page: perPage }, origin, input.url);
  },
};
