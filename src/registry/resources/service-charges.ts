import { defineResource } from '../define-resource.js';

export const serviceCharges = defineResource({
  name: 'service-charges',
  table: 'service_charges',
  description: 'A fee attached to a product (cleaning, service, tax).',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    product_id: { type: 'reference', references: 'products', description: 'Product the charge applies to.', required: true, immutable: true, filterable: true, sortable: true, gdpr: 'none' },
    name: { type: 'string', description: 'Label shown on invoices.', maxLength: 200, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
    amount: {
      type: 'number',
      description: 'Amount in `currency` (decimal); for `basis` `percent_of_rent`, a percent (0–100) of the rent.',
      required: true,
      minimum: 0,
      maximum: 1_000_000_000,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    currency: { type: 'string', format: 'currency', description: "ISO 4217 code; defaults to the product's currency and must equal it (409 `currency_mismatch`).", filterable: true, gdpr: 'none' },
    basis: {
      type: 'string',
      description: 'How the charge counts in a price: once per order, per unit, per unit and period, or a percent of the rent (docs/selling.md).',
      enum: ['per_order', 'per_unit', 'per_unit_per_period', 'percent_of_rent'],
      default: 'per_order',
      filterable: true,
      gdpr: 'none',
    },
  },
});
