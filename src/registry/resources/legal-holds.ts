import { defineResource } from '../define-resource.js';

export const legalHolds = defineResource({
  name: 'legal-holds',
  table: 'legal_holds',
  description: 'Suspends erasure and retention purges of one record.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    resource: { type: 'string', description: 'Resource name of the held record.', required: true, immutable: true, maxLength: 40, filterable: true, gdpr: 'none' },
    record_id: { type: 'string', description: 'Held record.', required: true, immutable: true, maxLength: 64, filterable: true, gdpr: 'pseudonymous' },
    reason: { type: 'string', description: 'Legal basis (case number, authority).', required: true, maxLength: 1000, gdpr: 'none' },
    expires_at: { type: 'timestamp', description: 'Hold ends automatically at this time; absent means until released.', nullable: true, filterable: true, sortable: true, gdpr: 'none' },
  },
});
