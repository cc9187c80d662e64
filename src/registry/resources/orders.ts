import { defineResource } from '../define-resource.js';

/** The JSON Schema of an order's (and a quote's) `lines`: rent lines per period, then service-charge lines. */
export const orderLinesShape = {
  type: 'array',
  items: {
    type: 'object',
    required: ['kind', 'amount'],
    properties: {
      kind: { type: 'string', enum: ['rent', 'service_charge'] },
      start: { type: 'string', format: 'date-time', description: 'Rent: start of the period.' },
      end: { type: 'string', format: 'date-time', description: 'Rent: end of the period.' },
      date: { type: 'string', format: 'date', description: "Rent: the local date (product's time zone) that prices the period." },
      unit_price: { type: 'number', description: 'Rent: price of one unit for the period.' },
      quantity: { type: 'integer', description: 'Rent: units.' },
      rate_id: { type: ['string', 'null'], description: "Rent: the rate that priced the period; null for the product's own price." },
      service_charge_id: { type: 'string', description: 'Service charge: the charge.' },
      name: { type: ['string', 'null'], description: 'Service charge: its name.' },
      basis: { type: 'string', enum: ['per_order', 'per_unit', 'per_unit_per_period', 'percent_of_rent'], description: 'Service charge: how it counts.' },
      amount: { type: 'number', description: 'Amount of the line in the currency (major units).' },
    },
  },
} as const;

export const orders = defineResource({
  name: 'orders',
  table: 'orders',
  description: 'A purchase of a product for a time range.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  indexes: [
    ['status', 'start_time'],
    ['product_id', 'start_time'],
  ],
  fields: {
    product_id: { type: 'reference', references: 'products', description: 'Ordered product (required unless `quote_id` is sent).', immutable: true, filterable: true, sortable: true, gdpr: 'none' },
    user_id: { type: 'reference', references: 'users', description: 'Ordering end user.', nullable: true, filterable: true, gdpr: 'pseudonymous' },
    start_time: { type: 'timestamp', description: 'Start (ISO 8601; required unless `quote_id` is sent).', filterable: true, sortable: true, gdpr: 'none' },
    end_time: { type: 'timestamp', description: 'End (ISO 8601), after start_time (required unless `quote_id` is sent).', filterable: true, sortable: true, gdpr: 'none' },
    status: {
      type: 'string',
      description:
        'Lifecycle state (docs/selling.md): `active` holds units until `expires_at`; a payment makes it `confirmed`; the expiry sweep `expired`; a payment after the units went to someone else `refund_required`.',
      enum: ['active', 'confirmed', 'expired', 'refund_required', 'cancelled', 'completed'],
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    total_amount: {
      type: 'number',
      description: 'Order total in `currency`: set by the service from the price (sent by the caller only for a product without a price).',
      minimum: 0,
      maximum: 1_000_000_000_000,
      nullable: true,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    currency: {
      type: 'string',
      format: 'currency',
      description: "ISO 4217 code: the product's for a priced order; else as sent, defaulting to the tenant's currency.",
      filterable: true,
      gdpr: 'none',
    },
    quantity: {
      type: 'integer',
      description: 'Units ordered (default 1; from the quote with `quote_id`).',
      minimum: 1,
      maximum: 10_000,
      immutable: true,
      nullable: true,
      filterable: true,
      gdpr: 'none',
    },
    quote_id: {
      type: 'string',
      description: 'A quote (`POST /v1/quotes`) to order at its lines and total; then leave out `product_id`, the times and `quantity`.',
      maxLength: 200,
      writeOnly: true,
      gdpr: 'none',
    },
    hold_seconds: { type: 'integer', description: 'How long the order holds its units unpaid (default `ORDER_HOLD_SECONDS`, 900).', minimum: 60, maximum: 86_400, writeOnly: true, gdpr: 'none' },
    lines: {
      type: 'object',
      description: 'The priced lines (rent per period, then service charges), as quoted; `total_amount` is their sum. Null for an order of a product without a price.',
      serverOwned: true,
      nullable: true,
      shape: orderLinesShape,
      gdpr: 'none',
    },
    expires_at: {
      type: 'timestamp',
      description: 'Until when the order holds its units unpaid; null once confirmed.',
      serverOwned: true,
      nullable: true,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    booking_id: { type: 'string', description: "The order's `held` booking (`active` once paid).", serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    paid_at: { type: 'timestamp', description: 'When the payment (or a confirm) was accepted.', serverOwned: true, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
