import { defineResource } from '../define-resource.js';

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
    product_id: { type: 'reference', references: 'products', description: 'Ordered product.', required: true, immutable: true, filterable: true, sortable: true, gdpr: 'none' },
    user_id: { type: 'reference', references: 'users', description: 'Ordering end user.', nullable: true, filterable: true, gdpr: 'pseudonymous' },
    start_time: { type: 'timestamp', description: 'Start (ISO 8601).', required: true, filterable: true, sortable: true, gdpr: 'none' },
    end_time: { type: 'timestamp', description: 'End (ISO 8601), after start_time.', required: true, filterable: true, sortable: true, gdpr: 'none' },
    status: { type: 'string', description: 'Lifecycle state.', enum: ['active', 'confirmed', 'cancelled', 'completed'], default: 'active', filterable: true, sortable: true, gdpr: 'none' },
    total_amount: { type: 'number', description: 'Order total in `currency`.', minimum: 0, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
    currency: { type: 'string', format: 'currency', description: "ISO 4217 code; defaults to the tenant's currency.", filterable: true, gdpr: 'none' },
  },
});
