import { defineResource } from '../define-resource.js';

/**
 * The attempts of one delivery, listed at `/v1/webhooks/{id}/deliveries/{delivery_id}/attempts`
 * with the full list query language: one row per attempt, kept as long as its delivery.
 * Like the deliveries, a sub-collection rather than a resource (`webhooks:read` lists them).
 */
export const webhookDeliveryAttempts = defineResource({
  name: 'webhook-delivery-attempts',
  table: 'webhook_delivery_attempts',
  description: 'One attempt to send a delivery: when, how long, and what the receiver answered.',
  tenancy: 'owned',
  operations: ['list'],
  softDelete: false,
  fields: {
    webhook_id: { type: 'string', description: 'The webhook.', serverOwned: true, filterable: true, gdpr: 'none' },
    delivery_id: { type: 'string', description: 'The delivery (also the `webhook-id` header the attempt carried).', serverOwned: true, filterable: true, gdpr: 'none' },
    attempt: { type: 'integer', description: '1 for the first attempt, then 2, 3, … (retries included).', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    status_code: { type: 'integer', description: "The receiver's HTTP status; null when it did not answer.", serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    error: { type: 'string', description: 'What went wrong (first kilobyte); null on success.', serverOwned: true, nullable: true, gdpr: 'none' },
    started_at: { type: 'timestamp', description: 'When the request started.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    finished_at: { type: 'timestamp', description: 'When the answer (or the failure) came.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    duration_ms: { type: 'integer', description: 'Milliseconds from start to finish.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
