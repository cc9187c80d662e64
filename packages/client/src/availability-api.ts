import type { ProductsTypes } from './generated/api.js';
import { listQuery, pagedList, tenant } from './resource-api.js';
import type { ListItem, ListIterator, ListOptions } from './resource-api.js';
import type { CallOptions, Transport } from './transport.js';

/** One end of a range: a date `YYYY-MM-DD` (midnight in each product's time zone), an ISO 8601 timestamp, or a `Date`. */
export type RangeBound = string | Date;

/** Options of `client.products.availability`. */
export interface ProductAvailabilityOptions extends CallOptions {
  readonly from: RangeBound;
  /** Exclusive. */
  readonly to: RangeBound;
  /** Local days (default, at most 366) or local hours (at most 744) of the product's time zone. */
  readonly granularity?: 'day' | 'hour';
}

/** One slot of a product's availability. */
export interface AvailabilitySlot {
  readonly start: string;
  readonly end: string;
  /** The most units held at any instant of the slot. */
  readonly booked: number;
  /** `max(0, total_items − booked)`; 0 while the product is in maintenance or retired. */
  readonly available: number;
}

/** The answer of `GET /v1/products/{id}/availability`. */
export interface ProductAvailability {
  readonly product_id: string;
  readonly total_items: number;
  readonly time_zone: string;
  readonly from: string;
  readonly to: string;
  readonly granularity: 'day' | 'hour';
  readonly slots: readonly AvailabilitySlot[];
}

/** Options of `client.availability.search`: the range, `quantity`, and a products list's options. */
export interface AvailabilitySearchOptions<F extends ProductsTypes['field']> extends ListOptions<ProductsTypes, F> {
  readonly from: RangeBound;
  /** Exclusive. */
  readonly to: RangeBound;
  /** Units that must be free at every instant of the range (default 1). */
  readonly quantity?: number;
}

/** What a stay costs, as an order would charge it: `total` in `currency` (major units). */
export interface StayPrice {
  readonly total: number;
  readonly currency: string;
}

/**
 * A product of a search, with the fewest units free over the range and the stay's `price`
 * (`quantity` units over `[from, to)`), in place of the product's unit price: `null` for a
 * product without a price. Products whose rates refuse the stay are not listed.
 */
export type AvailableProduct<F extends ProductsTypes['field'] = never> = Omit<ListItem<ProductsTypes, F>, 'price'> & { readonly available: number; readonly price: StayPrice | null };

function bound(value: RangeBound): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** `client.availability`: products with free units over a range. */
export interface AvailabilityApi {
  /** Every product with `quantity` units free throughout `[from, to)` (and sellable for it, when it has a price), paged like a list. */
  search<F extends ProductsTypes['field'] = never>(options: AvailabilitySearchOptions<F>): ListIterator<AvailableProduct<F>>;
}

/** The availability calls of the client, over its transport. */
export function availabilityApi(transport: Transport): { readonly availability: AvailabilityApi; productAvailability(id: string, options: ProductAvailabilityOptions): Promise<ProductAvailability> } {
  return {
    availability: Object.freeze({
      search<F extends ProductsTypes['field'] = never>(options: AvailabilitySearchOptions<F>): ListIterator<AvailableProduct<F>> {
        const query = listQuery(options);
        query.set('from', bound(options.from));
        query.set('to', bound(options.to));
        if (options.quantity !== undefined) query.set('quantity', String(options.quantity));
        return pagedList<AvailableProduct<F>>(transport, '/availability', query, options);
      },
    }),
    async productAvailability(id, options) {
      if (id === '') throw new TypeError('id must not be empty');
      const query = new URLSearchParams({ from: bound(options.from), to: bound(options.to), granularity: options.granularity ?? 'day' });
      const { body } = await transport.request<ProductAvailability>({ method: 'GET', path: `/products/${encodeURIComponent(id)}/availability`, query, ...tenant(options) });
      return body;
    },
  };
}
