import type { OrdersRecord, ProductRatesTypes, ResourceClients } from './generated/api.js';
import { ResourceClient, tenant } from './resource-api.js';
import type { ResourceApi, Versioned, WriteOptions } from './resource-api.js';
import type { CreateOptions, Transport } from './transport.js';

/*
 * Selling a stay (the service's docs/selling.md): quotes, an order's confirm and cancel, and
 * the rates of a product. The OpenAPI document prints the quote and the rate schemas inline in
 * their operations (they are not resources of the registry), so `npm run client:types` does
 * not generate them: they are written here, and test/client/selling.test.ts checks every
 * member name against the document the service serves.
 */

/** One line of a quote or an order: the rent of one period, or one service charge. */
export type OrderLine = NonNullable<OrdersRecord['lines']>[number];

/** One end of a stay: an ISO 8601 timestamp with a zone, or a `Date`. */
export type StayBound = string | Date;

/** The body of `client.quotes.create`: a stay of a product. */
export interface QuoteRequest {
  readonly product_id: string;
  readonly start_time: StayBound;
  /** After `start_time`, at most 366 days later. */
  readonly end_time: StayBound;
  /** Units, 1 to 10 000 (default 1). */
  readonly quantity?: number;
}

/** The price of a stay, kept 15 minutes for an order (`POST /v1/quotes`). */
export interface Quote {
  /** Opaque; `client.orders.create({ quote_id })` orders exactly these lines and total until `expires_at`. */
  readonly quote_id: string;
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly quantity: number;
  /** The product's ISO 4217 code. */
  readonly currency: string;
  /** Nights, days or hours of the stay (the product's `price_unit`). */
  readonly periods: number;
  /** Rent per period at the rate covering its local date, then every service charge. */
  readonly lines: readonly OrderLine[];
  /** The sum of the lines, in `currency` (major units). */
  readonly total: number;
  /** 15 minutes after the quote. */
  readonly expires_at: string;
}

/** `client.quotes`: prices of stays. */
export interface QuotesApi {
  /**
   * Prices a stay (`POST /v1/quotes`, capability `orders:quote`). Holds nothing: the units are
   * taken only by an order. Refused as an order would be: `ConflictError` with `code`
   * `not_for_sale`, `stay_restricted` (`problem.reasons`), `currency_mismatch`,
   * `product_unavailable` or `capacity_exceeded` (`problem.available`); `NotFoundError` for a
   * product out of reach; `ValidationError` for a bad stay.
   */
  create(body: QuoteRequest, options?: CreateOptions): Promise<Quote>;
}

/**
 * The rates of one product (`/v1/products/{id}/rates`): `list`, `get`, `create`, `update`,
 * `updateWithRetry` and `delete`, with ETags as on every record. Reading needs
 * `products:read`, writing `products:update`. A rate sharing a date with another rate of the
 * product is a `ConflictError` with `code` `rate_overlap` and the other rate in
 * `problem.rate_id`; a product out of reach is a `NotFoundError`.
 */
export type ProductRatesApi = ResourceApi<ProductRatesTypes, 'list' | 'get' | 'create' | 'update' | 'updateWithRetry' | 'delete'>;

/** What `client.orders` has beyond the collection's operations. */
export interface OrderActions {
  /**
   * Confirms an order paid elsewhere (`POST /v1/orders/{id}/confirm`, capability
   * `orders:confirm`, `If-Match`): the payment rules without the amount comparison. A live
   * hold becomes `confirmed`; a hold past `expires_at` is confirmed late while its units are
   * still free, else the order becomes `refund_required` (answered, not thrown). Confirming a
   * `confirmed` order changes nothing; a `cancelled` or `refund_required` one is a
   * `ConflictError` with `code` `invalid_transition`; a stale `etag` a `PreconditionFailedError`.
   */
  confirm(id: string, options: WriteOptions): Promise<Versioned<OrdersRecord>>;
  /**
   * Cancels an order (a PATCH of `status: "cancelled"` with `If-Match`, capability
   * `orders:update`): its booking is cancelled in the same transaction, so its units are free
   * at once. Only an `active` or `confirmed` order of a product with a price can be cancelled
   * (`ConflictError` `invalid_transition` otherwise); no refund is made by the service.
   */
  cancel(id: string, options: WriteOptions): Promise<Versioned<OrdersRecord>>;
}

/** `client.orders`: the collection's operations, `confirm` and `cancel`. */
export type OrdersApi = ResourceClients['orders'] & OrderActions;

const bound = (value: StayBound): string => (value instanceof Date ? value.toISOString() : value);

function versioned(response: { headers: Headers; body: unknown }): Versioned<OrdersRecord> {
  return { record: response.body as OrdersRecord, etag: response.headers.get('etag') ?? '' };
}

function orderPath(id: string): string {
  if (id === '') throw new TypeError('id must not be empty');
  return `/orders/${encodeURIComponent(id)}`;
}

/** The selling calls of the client, over its transport. */
export function sellingApi(transport: Transport): { readonly quotes: QuotesApi; readonly orderActions: OrderActions; rates(productId: string): ProductRatesApi } {
  return {
    quotes: Object.freeze({
      async create(body: QuoteRequest, options: CreateOptions = {}): Promise<Quote> {
        const stay = { ...body, start_time: bound(body.start_time), end_time: bound(body.end_time) };
        const response = await transport.request<Quote>({
          method: 'POST',
          path: '/quotes',
          body: stay,
          ...tenant(options),
          ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
        });
        return response.body;
      },
    }),
    orderActions: Object.freeze({
      async confirm(id: string, options: WriteOptions) {
        return versioned(await transport.request({ method: 'POST', path: `${orderPath(id)}/confirm`, headers: { 'if-match': options.etag }, ...tenant(options) }));
      },
      async cancel(id: string, options: WriteOptions) {
        return versioned(await transport.request({ method: 'PATCH', path: orderPath(id), body: { status: 'cancelled' }, headers: { 'if-match': options.etag }, ...tenant(options) }));
      },
    }),
    rates(productId: string): ProductRatesApi {
      if (productId === '') throw new TypeError('productId must not be empty');
      const all = new ResourceClient<ProductRatesTypes>(transport, `products/${encodeURIComponent(productId)}/rates`);
      return Object.freeze({
        list: all.list.bind(all),
        get: all.get.bind(all),
        create: all.create.bind(all),
        update: all.update.bind(all),
        updateWithRetry: all.updateWithRetry.bind(all),
        delete: all.delete.bind(all),
      });
    },
  };
}
