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
    amount: { type: 'number', description: 'Amount in `currency` (decimal).', required: true, minimum: 0, maximum: 1_000_000_000, filterable: true, sortable: true, gdpr: 'none' },
    currency: { type: 'string', format: 'currency', description: "ISO 4217 code; defaults to the tenant's currency.", filterable: true, gdpr: 'none' },
  },
});
