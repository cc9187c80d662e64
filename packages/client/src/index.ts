/**
 * TypeScript client of the booking service API.
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://localhost:3000', clientId, privateKey: pem });
 * for await (const product of client.products.list({ where: { city: 'Berlin' } })) console.log(product.name);
 * ```
 */
export { createClient } from './create-client.js';
export type { Client, ClientOptions } from './create-client.js';
export type { AccessToken } from './token-provider.js';
export { REFRESH_MARGIN_MS } from './token-provider.js';
export type { DpopKeyPair } from './dpop-signer.js';
export type { Clock, Sleep } from './clock.js';
export type { RetryOptions } from './retry-policy.js';
export type { ApiQuery, ApiRequest, ApiResponse, CallOptions, CreateOptions, QueryValue } from './transport.js';
export { ResourceClient } from './resource-api.js';
export type { AvailabilityApi, AvailabilitySearchOptions, AvailabilitySlot, AvailableProduct, ProductAvailability, ProductAvailabilityOptions, RangeBound, StayPrice } from './availability-api.js';
export type { OrderActions, OrderLine, OrdersApi, ProductRatesApi, Quote, QuoteRequest, QuotesApi, StayBound } from './selling-api.js';
export type { CalendarConflict, CalendarFeed, CalendarFeedApi, CalendarImportsApi } from './calendars-api.js';
export type { Created, ListItem, ListIterator, ListOptions, Page, ResourceApi, ResourceTypes, UpdateWithRetryOptions, Versioned, WriteOptions } from './resource-api.js';
export type { FieldCondition, Where } from './where.js';
export {
  AuthenticationError,
  BookingClientError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  PreconditionFailedError,
  ProblemError,
  RateLimitError,
  TokenRequestError,
  ValidationError,
} from './errors.js';
export type { FieldProblem, ProblemCode } from './errors.js';
export { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';
export type { VerifiedWebhook, VerifyWebhookOptions, WebhookFailure, WebhookHeaders } from './verify-webhook.js';
export { algOfPkcs8, importClientKey } from './client-key.js';
export type { ClientKey, ClientKeyAlg } from './client-key.js';
export { apiVersion } from './generated/api.js';
export type * from './generated/api.js';
