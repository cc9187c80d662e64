import { defineResource } from '../define-resource.js';

export const bookings = defineResource({
  name: 'bookings',
  table: 'bookings',
  description: 'A reservation of a product for a time range.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  indexes: [
    ['status', 'start_time'],
    ['product_id', 'start_time'],
  ],
  // Holdings of a product over a time range, of every tenant (capacity and availability):
  // covering, so the scan never visits the table (`deleted_at` included for SQLite: 0019;
  // `expires_at` decides whether a `held` booking still holds: 0025).
  crossTenantIndexes: {
    bookings_holdings_idx: ['product_id', 'start_time', 'end_time', 'status', 'quantity', 'expires_at', '_id', 'deleted_at'],
    // A calendar import's blocks, read by every sync's diff (0026).
    bookings_calendar_import_idx: ['calendar_import_id', 'external_uid'],
  },
  fields: {
    product_id: { type: 'reference', references: 'products', description: 'Booked product.', required: true, immutable: true, filterable: true, sortable: true, gdpr: 'none' },
    user_id: { type: 'reference', references: 'users', description: 'End user the booking is for.', nullable: true, filterable: true, gdpr: 'pseudonymous' },
    start_time: { type: 'timestamp', description: 'Start (ISO 8601).', required: true, filterable: true, sortable: true, gdpr: 'none' },
    end_time: { type: 'timestamp', description: 'End (ISO 8601), after start_time.', required: true, filterable: true, sortable: true, gdpr: 'none' },
    status: {
      type: 'string',
      description: 'Lifecycle state. `held` and `expired` belong to bookings of orders: a `held` booking holds its units while `expires_at` is in the future.',
      enum: ['active', 'held', 'expired', 'cancelled', 'completed'],
      default: 'active',
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    quantity: { type: 'integer', description: 'Units booked.', default: 1, minimum: 1, maximum: 10_000, filterable: true, sortable: true, gdpr: 'none' },
    reference: { type: 'string', description: "Partner's own reference.", maxLength: 120, nullable: true, filterable: true, gdpr: 'none' },
    order_id: {
      type: 'string',
      description: 'The order this booking belongs to; such a booking changes only through its order (409 `managed_by_order`).',
      serverOwned: true,
      nullable: true,
      filterable: true,
      gdpr: 'none',
    },
    expires_at: { type: 'timestamp', description: 'Until when a `held` booking holds its units; null once paid.', serverOwned: true, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
    source: {
      type: 'string',
      enum: ['api', 'calendar'],
      description: 'Where the booking came from: the API (orders included), or a calendar import (a block; 409 `managed_by_calendar` on any change).',
      default: 'api',
      serverOwned: true,
      filterable: true,
      gdpr: 'none',
    },
    calendar_import_id: { type: 'string', description: 'The calendar import a block came from.', serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    external_uid: { type: 'string', description: "A block's event in its feed: UID, plus RECURRENCE-ID for an occurrence.", serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    notes: { type: 'string', description: 'Free-text notes; may mention the guest.', maxLength: 2000, nullable: true, gdpr: 'personal', erasure: 'redact' },
  },
});
