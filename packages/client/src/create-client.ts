import type { CryptoKey } from 'jose';
import { availabilityApi } from './availability-api.js';
import type { AvailabilityApi, ProductAvailability, ProductAvailabilityOptions } from './availability-api.js';
import { calendarsApi } from './calendars-api.js';
import type { CalendarFeedApi, CalendarImportsApi } from './calendars-api.js';
import { importClientKey } from './client-key.js';
import type { ClientKey } from './client-key.js';
import { realSleep, systemClock } from './clock.js';
import type { Clock, Sleep } from './clock.js';
import { DpopSigner } from './dpop-signer.js';
import type { DpopKeyPair } from './dpop-signer.js';
import { resourceCatalogue } from './generated/api.js';
import type { ResourceClients } from './generated/api.js';
import { ResourceClient } from './resource-api.js';
import { RetryPolicy } from './retry-policy.js';
import type { RetryOptions } from './retry-policy.js';
import { sellingApi } from './selling-api.js';
import type { OrdersApi, ProductRatesApi, QuotesApi } from './selling-api.js';
import { TokenProvider } from './token-provider.js';
import type { AccessToken } from './token-provider.js';
import { Transport } from './transport.js';
import type { ApiRequest, ApiResponse } from './transport.js';

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The service's origin, its `PUBLIC_URL` (e.g. `https://api.example.com`); the API is under `/v1`. */
  readonly baseUrl: string;
  /** The API client's id (`client_id` from `cli client create` or `POST /v1/api-clients`). */
  readonly clientId: string;
  /** The client's EC private key: PKCS8 PEM (`cli keygen`), or a WebCrypto ECDSA key. */
  readonly privateKey: string | CryptoKey;
  /** Key id registered with the key; default the key's RFC 7638 thumbprint (the service's default). */
  readonly kid?: string;
  /**
   * Tenant node every call acts in (`X-Tenant-Id`), for a system-level client; a call's own
   * `tenantId` overrides it. Without it a system-level client acts at the system node, where
   * creating a tenant-owned record is a 400.
   */
  readonly tenantId?: string;
  /** Capabilities to request, space-separated; default all the client holds. */
  readonly scope?: string;
  /** Bind tokens to a DPoP key (RFC 9449): `true` generates one, or pass your key pair. */
  readonly dpop?: boolean | DpopKeyPair;
  /** Token endpoint; default `{baseUrl}/v1/auth/token` (the assertion's `aud`). */
  readonly tokenUrl?: string;
  readonly retry?: RetryOptions;
  /** Time source for token expiry, assertions and proofs (default `Date.now`). */
  readonly clock?: Clock;
  /** How the client waits for `Retry-After` and back-off (default `setTimeout`). */
  readonly sleep?: Sleep;
  /** `fetch` to use (default the global one). */
  readonly fetch?: typeof fetch;
  /** `User-Agent` of API calls. */
  readonly userAgent?: string;
}

/** A connected client: one property per resource, plus the raw request and token access. */
export interface Client extends Omit<ResourceClients, 'products' | 'orders'> {
  /** `/v1/products`, plus each product's availability per local day or hour, its rates and its calendars. */
  readonly products: ResourceClients['products'] & {
    availability(id: string, options: ProductAvailabilityOptions): Promise<ProductAvailability>;
    /** The rates of the product `productId` (`/v1/products/{id}/rates`): prices and stay restrictions per local date. */
    rates(productId: string): ProductRatesApi;
    /** The secret iCalendar feed of the product `productId` that other channels import (`/v1/products/{id}/calendar-feed`). */
    calendarFeed(productId: string): CalendarFeedApi;
    /** The other channels' feeds the product `productId` imports as blocks (`/v1/products/{id}/calendar-imports`). */
    calendarImports(productId: string): CalendarImportsApi;
  };
  /** `/v1/orders`, plus `confirm` (paid elsewhere) and `cancel`. */
  readonly orders: OrdersApi;
  /** `/v1/quotes`: the price of a stay, kept 15 minutes for an order. */
  readonly quotes: QuotesApi;
  /** `/v1/availability`: products with free units over a range, each with the stay's price. */
  readonly availability: AvailabilityApi;
  /** An authenticated request to any API path (below `/v1`), with the same retries and errors. */
  request<T = unknown>(request: ApiRequest): Promise<ApiResponse<T>>;
  /** The current access token, fetched or refreshed if needed (for calls made elsewhere). */
  accessToken(): Promise<AccessToken>;
  /** The DPoP key's thumbprint (`cnf.jkt`), when tokens are DPoP-bound. */
  dpopThumbprint(): Promise<string | undefined>;
}

/** `https://x/` or `https://x/v1` → `https://x`. */
function originOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

/**
 * A client of the booking service. Nothing is fetched until the first call; tokens are
 * obtained with `private_key_jwt`, reused until shortly before they expire, and (with
 * `dpop`) bound to a DPoP key that signs a proof for every request.
 */
export function createClient(options: ClientOptions): Client {
  const origin = originOf(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const retry = new RetryPolicy(options.retry ?? {}, clock, options.sleep ?? realSleep);
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const dpop = options.dpop ? new DpopSigner(clock, options.dpop === true ? undefined : options.dpop) : undefined;
  let key: Promise<ClientKey> | undefined;
  const tokens = new TokenProvider({
    tokenUrl: options.tokenUrl ?? `${origin}/v1/auth/token`,
    clientId: options.clientId,
    key: () => (key ??= importClientKey(options.privateKey, options.kid)),
    fetch: fetchImpl,
    clock,
    retry,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(dpop ? { dpop } : {}),
  });
  const transport = new Transport({
    apiBase: `${origin}/v1`,
    fetch: fetchImpl,
    tokens,
    retry,
    userAgent: options.userAgent ?? 'booking-service-client/0.1',
    ...(dpop ? { dpop } : {}),
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
  });
  // Each resource exposes only the methods its operations allow, as its type says.
  const resources = Object.fromEntries(
    resourceCatalogue.map(({ property, path, methods }) => {
      const all = new ResourceClient(transport, path);
      return [property, Object.freeze(Object.fromEntries(methods.map((m) => [m, all[m].bind(all)])))];
    }),
  ) as unknown as ResourceClients;
  const availability = availabilityApi(transport);
  const selling = sellingApi(transport);
  const calendars = calendarsApi(transport);
  return {
    ...resources,
    products: Object.freeze({
      ...resources.products,
      availability: availability.productAvailability,
      rates: selling.rates,
      calendarFeed: calendars.calendarFeed,
      calendarImports: calendars.calendarImports,
    }),
    orders: Object.freeze({ ...resources.orders, ...selling.orderActions }),
    quotes: selling.quotes,
    availability: availability.availability,
    request: (request) => transport.request(request),
    accessToken: () => tokens.get(),
    dpopThumbprint: async () => (dpop ? dpop.thumbprint() : undefined),
  };
}
