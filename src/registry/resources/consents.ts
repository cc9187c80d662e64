import { defineResource } from '../define-resource.js';

export const consents = defineResource({
  name: 'consents',
  table: 'consents',
  description: "A user's consent decision for one processing purpose. Append-only evidence: a withdrawal is a new record with `granted: false`; the newest record per purpose is the current decision.",
  tenancy: 'owned',
  // Evidence of lawful processing: recorded, never changed or deleted (PATCH/DELETE answer 405).
  operations: ['list', 'read', 'create'],
  fields: {
    user_id: { type: 'reference', references: 'users', description: 'User who decided.', required: true, immutable: true, filterable: true, gdpr: 'pseudonymous' },
    purpose: { type: 'string', description: 'Processing purpose (e.g. marketing_email).', required: true, maxLength: 120, filterable: true, sortable: true, gdpr: 'none' },
    granted: { type: 'boolean', description: 'Consent given (true) or withdrawn (false).', required: true, filterable: true, gdpr: 'none' },
    source: { type: 'string', description: 'Where the decision was captured (form, channel, address); nulled by erasure.', maxLength: 120, nullable: true, gdpr: 'personal' },
    policy_version: { type: 'string', description: 'Version of the privacy policy or consent text the user saw.', maxLength: 60, nullable: true, filterable: true, gdpr: 'none' },
    expires_at: { type: 'timestamp', description: 'When the consent lapses.', nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
