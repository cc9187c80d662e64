import { defineResource } from '../define-resource.js';

export const subscriptions = defineResource({
  name: 'subscriptions',
  table: 'subscriptions',
  description: 'A recurring entitlement to a product.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    product_id: { type: 'reference', references: 'products', description: 'Subscribed product.', required: true, immutable: true, filterable: true, sortable: true, gdpr: 'none' },
    user_id: { type: 'reference', references: 'users', description: 'Subscribing end user.', nullable: true, filterable: true, gdpr: 'pseudonymous' },
    plan: { type: 'string', description: 'Plan name.', maxLength: 120, nullable: true, filterable: true, sortable: true, gdpr: 'none' },
    status: { type: 'string', description: 'Lifecycle state.', enum: ['active', 'paused', 'cancelled'], default: 'active', filterable: true, sortable: true, gdpr: 'none' },
    valid_until: { type: 'timestamp', description: 'End of validity; absent means open-ended.', nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
