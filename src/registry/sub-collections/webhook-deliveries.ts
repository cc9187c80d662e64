import { defineResource } from '../define-resource.js';

/**
 * The deliveries of a webhook, listed at `/v1/webhooks/{id}/deliveries` with the full list
 * query language. Described with the registry's vocabulary so filters, sorts, field
 * selection and paging work as on every list; not a resource of its own (no CRUD routes or
 * capabilities: `webhooks:read` lists them).
 */
export const webhookDeliveries = defineResource({
  name: 'webhook-deliveries',
  table: 'webhook_deliveries',
  description: 'One event to send to one webhook, with its attempts.',
  tenancy: 'owned',
  operations: ['list'],
  softDelete: false,
  fields: {
    webhook_id: { type: 'string', description: 'The webhook.', serverOwned: true, filterable: true, gdpr: 'none' },
    event_id: { type: 'string', description: 'The outbox event (or `ping-…`).', serverOwned: true, filterable: true, gdpr: 'none' },
    type: { type: 'string', description: 'Event name.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'], description: 'Where the delivery stands.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    attempts: { type: 'integer', description: 'Attempts so far.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    last_status_code: { type: 'integer', description: "The receiver's last HTTP status, if it answered.", serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    last_error: { type: 'string', description: 'What went wrong last (first kilobyte).', serverOwned: true, nullable: true, gdpr: 'none' },
    next_attempt_at: { type: 'timestamp', description: 'When the next attempt is due (pending only).', serverOwned: true, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
