import { listHeaders } from '../derive/openapi/headers.js';
import { listParameters } from '../derive/openapi/list-parameters.js';
import { problems } from '../derive/openapi/problems.js';
import { ref } from '../derive/openapi/types.js';
import type { OpenApiObject, Schema } from '../derive/openapi/types.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef } from './action.js';
import { headerRefs, json, productSubAction, subCollectionParts } from './sub-collection.js';

/*
 * Calendars (docs/calendars.md): a product's secret export feed, its public `.ics` route,
 * and the calendar imports sub-collection at `/v1/products/{id}/calendar-imports`, with the
 * product's capabilities (`products:read` to read, `products:update` to write).
 */

const { record, createBody, list, bodyMembers } = subCollectionParts(calendarImports, 'a calendar import');

const id = ref('parameters', 'id');
const importId: OpenApiObject = { name: 'import_id', in: 'path', required: true, description: 'The import (`_id`).', schema: { type: 'string', minLength: 1, maxLength: 200 } };
const ifMatch = ref('parameters', 'IfMatch');
const notFoundNote = "404 for a product outside the caller's reach, as reading it would be, and for an import of another product.";

const feedAddress: Schema = {
  type: 'object',
  required: ['url', 'created_at'],
  properties: {
    url: { type: 'string', format: 'uri', description: '`{PUBLIC_URL}/v1/calendars/{secret}.ics`: the secret is the credential; give it only to the channel.' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const collection = '/v1/products/:id/calendar-imports';
const item = `${collection}/:import_id`;

/** The calendar operations (docs/calendars.md); handlers in `src/handlers/calendar-handlers.ts`. */
export const calendarActions: readonly ActionDef[] = [
  productSubAction(
    'calendar-feed',
    'POST',
    '/v1/products/:id/calendar-feed',
    {
      operationId: 'rotate_calendar_feed',
      summary: 'Give a product a new secret calendar feed URL',
      description:
        "A new secret replaces any earlier one: the old URL answers 404 at once, on every instance (each request looks its secret up). Audited as `calendar_feed_rotated`. 404 for a product outside the caller's reach.",
      parameters: [id],
      responses: { 201: { description: 'The feed URL.', content: json(feedAddress) }, ...problems('400', '404') },
    },
    { response: { 201: feedAddress } },
  ),
  productSubAction(
    'calendar-feed-read',
    'GET',
    '/v1/products/:id/calendar-feed',
    {
      operationId: 'read_calendar_feed',
      summary: "A product's current calendar feed URL",
      description: "Needs `products:update`, like a rotation: the URL is the feed's credential. 404 when the product has no feed yet.",
      parameters: [id],
      responses: { 200: { description: 'The feed URL.', content: json(feedAddress) }, ...problems('400', '404') },
    },
    { response: { 200: feedAddress } },
    'products:update',
  ),
  {
    resource: 'products',
    name: 'calendar-export',
    method: 'GET',
    path: '/v1/calendars/:file',
    capability: 'products:calendar-export',
    rateLimitGroup: 'public',
    authentication: 'public',
    stepUp: false,
    openapi: {
      operationId: 'export_calendar',
      summary: "A product's bookings as an iCalendar feed (RFC 5545)",
      tags: ['products'],
      description:
        'No token: the secret in the path (`{secret}.ics`) is the credential, and is never logged. One `VEVENT` per booking holding units from 30 days ago to 2 years ahead (UTC times, `SUMMARY` `Booked` or `Booked (N units)`, no personal data), and a `STATUS:CANCELLED` event with a higher `SEQUENCE` for one cancelled or expired in the last 30 days. `ETag`; `If-None-Match` → 304. Rate-limited per address.',
      parameters: [{ name: 'file', in: 'path', required: true, description: '`{secret}.ics`', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}\\.ics$' } }],
      responses: {
        200: { description: 'The feed.', headers: headerRefs('ETag'), content: { 'text/calendar': { schema: { type: 'string' } } } },
        304: { description: 'Not modified since the ETag sent in `If-None-Match`.' },
        ...problems('404', '429'),
      },
    },
    // Channels may add a cache-buster (`?t=…`): the feed ignores every query parameter.
    schemas: { query: queryParsedByHandler },
  },
  productSubAction(
    'calendar-imports-list',
    'GET',
    collection,
    {
      operationId: 'list_calendar_imports',
      summary: "A product's calendar imports, with their health",
      description: `The full list query language over the import fields. ${notFoundNote}`,
      parameters: [id, ...listParameters(calendarImports)],
      responses: { 200: { description: 'One page of imports.', headers: listHeaders(), content: json(list) }, ...problems('400', '404') },
    },
    { query: queryParsedByHandler },
  ),
  productSubAction(
    'calendar-imports-create',
    'POST',
    collection,
    {
      operationId: 'create_calendar_import',
      summary: "Import another channel's iCalendar feed into a product",
      description: `Fetches the feed at once and answers the import after that first sync, failed or not (\`status\`, \`last_error\`); then every \`CALENDAR_SYNC_SECONDS\`. Each event blocks \`units\` units (a booking with \`source: "calendar"\`) if they are free; one that does not fit is listed in \`conflicts\`. ${notFoundNote}`,
      parameters: [id],
      requestBody: { required: true, content: json(createBody) },
      responses: { 201: { description: 'The import, after its first sync.', headers: headerRefs('ETag', 'Location'), content: json(record) }, ...problems('400', '404', '413', '415') },
    },
    { body: createBody, unknownMembers: bodyMembers },
  ),
  productSubAction('calendar-imports-read', 'GET', item, {
    operationId: 'read_calendar_import',
    summary: 'A calendar import with its health',
    description: notFoundNote,
    parameters: [id, importId],
    responses: { 200: { description: 'The import.', headers: headerRefs('ETag'), content: json(record) }, ...problems('400', '404') },
  }),
  productSubAction('calendar-imports-delete', 'DELETE', item, {
    operationId: 'delete_calendar_import',
    summary: 'Stop importing a feed; its blocks are cancelled',
    description: `Cancels every block of the import in the same transaction (their units are free at once). Needs the current ETag in \`If-Match\`. ${notFoundNote}`,
    parameters: [id, importId, ifMatch],
    responses: { 204: { description: 'Deleted.' }, ...problems('400', '404', '409', '412', '428') },
  }),
  productSubAction('calendar-imports-sync', 'POST', `${item}/sync`, {
    operationId: 'sync_calendar_import',
    summary: 'Fetch and apply a calendar import now',
    description: `Answers the import after the sync, failed or not. ${notFoundNote}`,
    parameters: [id, importId],
    responses: { 200: { description: 'The import after the sync.', headers: headerRefs('ETag'), content: json(record) }, ...problems('400', '404') },
  }),
];
