import type { CalendarImportsRecord, CalendarImportsTypes } from './generated/api.js';
import { ResourceClient, tenant } from './resource-api.js';
import type { ResourceApi, Versioned } from './resource-api.js';
import type { CallOptions, CreateOptions, Transport } from './transport.js';

/*
 * Calendars (the service's docs/calendars.md): a product's secret iCalendar feed for other
 * channels to import, and the channels' feeds the product imports as blocks. The OpenAPI
 * document prints these schemas inline in their operations (they are not resources of the
 * registry), so `npm run client:types` does not generate them: they are written here, and
 * test/client/calendars.test.ts checks every member name against the document the service serves.
 */

/** A product's export feed (`/v1/products/{id}/calendar-feed`). */
export interface CalendarFeed {
  /**
   * `{PUBLIC_URL}/v1/calendars/{secret}.ics`: the secret is the credential, so give the URL
   * only to the channel that imports it. Fetched without a token.
   */
  readonly url: string;
  /** When this URL was made (its rotation). */
  readonly created_at: string;
}

/** `client.products.calendarFeed(productId)`: the product's secret export feed URL. */
export interface CalendarFeedApi {
  /**
   * Gives the product a new secret feed URL (`POST /v1/products/{id}/calendar-feed`,
   * capability `products:update`), also the first one. The previous URL answers 404 from now
   * on, on every instance: hand the new one to every channel that imported the old. With an
   * `idempotencyKey`, a repeat answers the URL of the first request instead of rotating again.
   * A product out of reach is a `NotFoundError`.
   */
  rotate(options?: CreateOptions): Promise<CalendarFeed>;
  /**
   * The product's current feed URL (`GET /v1/products/{id}/calendar-feed`). Needs
   * `products:update` like a rotation, since the URL is the feed's credential. A product
   * without a feed yet (never rotated), or out of reach, is a `NotFoundError`.
   */
  get(options?: CallOptions): Promise<CalendarFeed>;
}

/** An event of an imported feed that did not fit the product's free units, so blocks nothing. */
export type CalendarConflict = NonNullable<CalendarImportsRecord['conflicts']>[number];

/**
 * The calendar imports of one product (`/v1/products/{id}/calendar-imports`): `list`, `get`,
 * `create`, `delete` with ETags as on every record, and `sync`. Reading needs
 * `products:read`, writing `products:update`; a product out of reach, or an import of
 * another product, is a `NotFoundError`.
 *
 * - `create` fetches the feed at once and resolves after that first sync, failed or not:
 *   check `record.status` and `record.last_error`. A URL that is not `https:` (or `http:`
 *   where the service allows it), or names an address the service may not fetch from, is a
 *   `ValidationError` on `url`.
 * - `delete` (with the import's `etag`) cancels every block of the import, freeing its units at once.
 * - The blocks are bookings with `source: "calendar"` and `calendar_import_id`: read them
 *   with `client.bookings.list({ where: { calendar_import_id } })`; changing or deleting one
 *   through `client.bookings` is a `ConflictError` with `code` `managed_by_calendar`.
 */
export type CalendarImportsApi = ResourceApi<CalendarImportsTypes, 'list' | 'get' | 'create' | 'delete'> & {
  /**
   * Fetches and applies the import's feed now (`POST …/calendar-imports/{import_id}/sync`,
   * capability `products:update`) and resolves to the import after the sync, failed or not,
   * with its new ETag. A failed sync changes no block: see `status` and `last_error`.
   */
  sync(importId: string, options?: CallOptions): Promise<Versioned<CalendarImportsRecord>>;
};

function productPath(productId: string): string {
  if (productId === '') throw new TypeError('productId must not be empty');
  return `/products/${encodeURIComponent(productId)}`;
}

/** The calendar calls of the client, over its transport. */
export function calendarsApi(transport: Transport): { calendarFeed(productId: string): CalendarFeedApi; calendarImports(productId: string): CalendarImportsApi } {
  return {
    calendarFeed(productId: string): CalendarFeedApi {
      const path = `${productPath(productId)}/calendar-feed`;
      return Object.freeze({
        async rotate(options: CreateOptions = {}) {
          const response = await transport.request<CalendarFeed>({
            method: 'POST',
            path,
            ...tenant(options),
            ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
          });
          return response.body;
        },
        async get(options: CallOptions = {}) {
          return (await transport.request<CalendarFeed>({ method: 'GET', path, ...tenant(options) })).body;
        },
      });
    },
    calendarImports(productId: string): CalendarImportsApi {
      const path = `${productPath(productId)}/calendar-imports`;
      const all = new ResourceClient<CalendarImportsTypes>(transport, path.slice(1));
      return Object.freeze({
        list: all.list.bind(all),
        get: all.get.bind(all),
        create: all.create.bind(all),
        delete: all.delete.bind(all),
        async sync(importId: string, options: CallOptions = {}) {
          if (importId === '') throw new TypeError('importId must not be empty');
          const response = await transport.request<CalendarImportsRecord>({ method: 'POST', path: `${path}/${encodeURIComponent(importId)}/sync`, ...tenant(options) });
          return { record: response.body, etag: response.headers.get('etag') ?? '' };
        },
      });
    },
  };
}
