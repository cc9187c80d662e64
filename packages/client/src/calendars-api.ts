import { ResourceClient, tenant } from './resource-api.js';
import type { ResourceApi, ResourceTypes, Versioned } from './resource-api.js';
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
export interface CalendarConflict {
  /** The event: its `UID`, or `UID#<original start, ISO 8601 UTC>` for an occurrence of a recurring event. */
  readonly external_uid: string;
  /** The event's start (ISO 8601, UTC). */
  readonly start: string;
  /** The event's end (ISO 8601, UTC). */
  readonly end: string;
  /** Units free throughout the event when it was refused. */
  readonly available: number;
}

/** A calendar import: another channel's iCalendar feed whose events block the product's units, with its health. */
export interface CalendarImportsRecord {
  /** Record identifier, assigned by the service (UUIDv7). */
  readonly _id: string;
  /** Tenant node that owns the record (the product's). */
  readonly tenant_id: string;
  /** Creation time (ISO 8601, UTC). */
  readonly created_at: string;
  /** Time of the last change (ISO 8601, UTC): each sync changes the import. */
  readonly updated_at: string;
  /** The product (from the path). */
  readonly product_id?: string;
  /** The channel's feed URL (https; http only where the service allows it). */
  readonly url: string;
  /** What the channel is called (Airbnb, Booking.com). */
  readonly name?: string | null;
  /** Units each event blocks. */
  readonly units: number;
  /** `ok` after a successful sync; `failing` after a failed one; `stale` with no success for 3 × `CALENDAR_SYNC_SECONDS`. */
  readonly status?: 'ok' | 'failing' | 'stale';
  /** The last sync, failed or not. */
  readonly last_synced_at?: string | null;
  /** The last sync that applied the feed. */
  readonly last_success_at?: string | null;
  /** Why the last sync failed; null after a success. */
  readonly last_error?: string | null;
  /** Blocks the feed holds now. */
  readonly events?: number;
  /** Malformed (or over-long) events the last successful sync skipped. */
  readonly skipped?: number;
  /** The events of the last successful sync that did not fit the free units, not applied. */
  readonly conflicts?: CalendarConflict[];
  /** When the import turned stale (announced once by `calendars.stale`); null while syncs succeed. */
  readonly stale_since?: string | null;
}

/** Create body of a calendar import; `product_id` comes from the path. */
export interface CalendarImportsCreate {
  /** The channel's feed URL (at most 2 000 characters): `https:` (write `webcal://` links as `https://`). */
  url: string;
  /** What the channel is called, up to 200 characters. */
  name?: string | null;
  /** Units each event blocks, 1 to 10 000 (default 1). */
  units?: number;
}

/** Types of a product's calendar imports for the resource client. */
export interface CalendarImportsTypes extends ResourceTypes {
  readonly record: CalendarImportsRecord;
  readonly create: CalendarImportsCreate;
  /** Imports have no update: delete one and create another. */
  readonly update: never;
  /** Names `fields` may select. */
  readonly field:
    | '_id'
    | 'tenant_id'
    | 'created_at'
    | 'updated_at'
    | 'product_id'
    | 'url'
    | 'name'
    | 'units'
    | 'status'
    | 'last_synced_at'
    | 'last_success_at'
    | 'last_error'
    | 'events'
    | 'skipped'
    | 'conflicts'
    | 'stale_since';
  /** Keys `sort` accepts (`-` for descending); default `-created_at`. */
  readonly sortKey: '_id' | '-_id' | 'tenant_id' | '-tenant_id' | 'created_at' | '-created_at' | 'updated_at' | '-updated_at' | 'last_synced_at' | '-last_synced_at';
  /** Fields `where` may filter on, with the type of their values. */
  readonly filter: {
    readonly _id: string;
    readonly tenant_id: string;
    readonly created_at: string | Date;
    readonly updated_at: string | Date;
    readonly product_id: string;
    readonly name: string;
    readonly status: string;
    readonly last_synced_at: string | Date;
    readonly last_success_at: string | Date;
  };
}

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
