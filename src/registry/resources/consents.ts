import { defineResource } from '../define-resource.js';

export const consents = defineResource({
  name: 'consents',
  table: 'consents',
  description: "A user's consent decision for one processing purpose.",
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    user_id: { type: 'reference', references: 'users', description: 'User who decided.', required: true, immutable: true, filterable: true, gdpr: 'pseudonymous' },
    purpose: { type: 'string', description: 'Processing purpose (e.g. marketing_email).', required: true, maxLength: 120, filterable: true, sortable: true, gdpr: 'none' },
    granted: { type: 'boolean', description: 'Consent given (true) or withdrawn (false).', required: true, filterable: true, gdpr: 'none' },
    source: { type: 'string', description: 'Where the decision was captured.', maxLength: 120, nullable: true, gdpr: 'none' },
    expires_at: { type: 'timestamp', description: 'When the consent lapses.', nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
