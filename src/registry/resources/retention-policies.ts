import { defineResource } from '../define-resource.js';

export const retentionPolicies = defineResource({
  name: 'retention-policies',
  table: 'retention_policies',
  description: 'How long records of a category are kept before purge or anonymisation.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    category: { type: 'string', description: 'Data category (an audit category or a resource name).', required: true, maxLength: 60, filterable: true, sortable: true, gdpr: 'none' },
    retention_days: { type: 'integer', description: 'Days to keep.', required: true, minimum: 1, maximum: 36_500, filterable: true, sortable: true, gdpr: 'none' },
    action: { type: 'string', description: 'What happens after expiry.', enum: ['delete', 'anonymize'], default: 'delete', filterable: true, gdpr: 'none' },
  },
});
