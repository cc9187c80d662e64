import { defineResource } from '../define-resource.js';

/** The JSON Schema of an import's `conflicts`: the channel's events that did not fit. */
export const calendarConflictsShape = {
  type: 'array',
  items: {
    type: 'object',
    required: ['external_uid', 'start', 'end', 'available'],
    properties: {
      external_uid: { type: 'string', description: 'The event (UID, plus RECURRENCE-ID for an occurrence).' },
      start: { type: 'string', format: 'date-time' },
      end: { type: 'string', format: 'date-time' },
      available: { type: 'integer', description: 'Units free throughout the event when it was refused.' },
    },
  },
} as const;

/**
 * The iCalendar feeds a product imports, at `/v1/products/{id}/calendar-imports[/{import_id}]`
 * (docs/calendars.md "Import"): each event of the feed becomes a block, a booking with
 * `source: "calendar"`. Described with the registry's vocabulary so bodies, answers, ETags
 * and the audit trail work as on every record; the product's capabilities govern it.
 */
export const calendarImports = defineResource({
  name: 'calendar-imports',
  table: 'calendar_imports',
  description: "An iCalendar feed of another channel whose events block the product's units.",
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'delete'],
  fields: {
    product_id: { type: 'string', description: 'The product (from the path).', serverOwned: true, filterable: true, gdpr: 'none' },
    url: { type: 'string', format: 'uri', description: "The channel's feed URL (http or https; fetched through the outgoing address guard).", required: true, maxLength: 2000, gdpr: 'none' },
    name: { type: 'string', description: 'What the channel is called (Airbnb, Booking.com).', maxLength: 200, nullable: true, filterable: true, gdpr: 'none' },
    units: { type: 'integer', description: 'Units each event blocks.', default: 1, minimum: 1, maximum: 10_000, gdpr: 'none' },
    status: {
      type: 'string',
      enum: ['ok', 'failing', 'stale'],
      description: '`failing` after a failed sync; `stale` with no success for 3 × `CALENDAR_SYNC_SECONDS`.',
      serverOwned: true,
      filterable: true,
      gdpr: 'none',
    },
    last_synced_at: { type: 'timestamp', description: 'The last sync, failed or not.', serverOwned: true, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
    last_success_at: { type: 'timestamp', description: 'The last sync that applied the feed.', serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    last_error: { type: 'string', description: 'Why the last sync failed; null after a success.', serverOwned: true, nullable: true, gdpr: 'none' },
    events: { type: 'integer', description: 'Blocks the feed holds now.', serverOwned: true, gdpr: 'none' },
    skipped: { type: 'integer', description: 'Malformed events the last sync skipped.', serverOwned: true, gdpr: 'none' },
    conflicts: { type: 'object', description: 'Events that did not fit the free units, not applied.', serverOwned: true, shape: calendarConflictsShape, gdpr: 'none' },
    stale_since: { type: 'timestamp', description: 'When the import turned stale (announced once by `calendars.stale`); null while syncs succeed.', serverOwned: true, nullable: true, gdpr: 'none' },
  },
});
