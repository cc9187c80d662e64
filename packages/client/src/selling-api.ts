import type { OrdersRecord, ResourceClients } from './generated/api.js';
import { ResourceClient, tenant } from './resource-api.js';
import type { ResourceApi, ResourceTypes, Versioned, WriteOptions } from './resource-api.js';
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

/** A rate of a product: a price and stay restrictions over the product's local dates `[from, to)`. */
export interface ProductRatesRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record (the product's). */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC). */
  readonly updated_at: string;
  /** The product (from the path). */
  readonly product_id?: string;
  /** First local date (`YYYY-MM-DD`, the product's time zone). */
  from: string;
  /** The local date after the last one (exclusive), after `from` and at most 2 years later. */
  to: string;
  /** Price of one unit per `price_unit` on these dates; null: the product's price applies (the restrictions still do). */
  price?: number | null;
  /** Fewest periods of a stay arriving on these dates. */
  min_stay?: number | null;
  /** Most periods of a stay arriving on these dates. */
  max_stay?: number | null;
  /** None of these dates can be sold. */
  closed: boolean;
  /** No stay may start on these dates. */
  closed_to_arrival: boolean;
}

/** Create body of a rate; `product_id` comes from the path. */
export interface ProductRatesCreate {
  from: string;
  to: string;
  price?: number | null;
  min_stay?: number | null;
  max_stay?: number | null;
  closed?: boolean;
  closed_to_arrival?: boolean;
}

/** Update body of a rate: only the fields to change; the rate as changed is checked whole. */
export type ProductRatesUpdate = Partial<ProductRatesCreate>;

/** Types of a product's rates for the resource client. */
export interface ProductRatesTypes extends ResourceTypes {
  readonly record: ProductRatesRecord;
  readonly create: ProductRatesCreate;
  readonly update: ProductRatesUpdate;
  /** Names `fields` may select. */
  readonly field: '_id' | 'tenant_id' | 'created_at' | 'updated_at' | 'product_id' | 'from' | 'to' | 'price' | 'min_stay' | 'max_stay' | 'closed' | 'closed_to_arrival';
  /** Keys `sort` accepts (`-` for descending); the service sorts by `from` by default. */
  readonly sortKey: '_id' | '-_id' | 'tenant_id' | '-tenant_id' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'from' | '-from' | 'to' | '-to';
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly from: string;
    readonly to: string;
  };
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
