import { defineResource } from '../define-resource.js';

export const auditLogs = defineResource({
  name: 'audit-logs',
  table: 'audit_logs',
  description: 'Append-only trail of every change and security event.',
  tenancy: 'owned',
  operations: ['list', 'read', 'export'],
  softDelete: false,
  systemOwned: true,
  fields: {
    category: { type: 'string', description: 'Retention category: `data` for changes, `security` for security events.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    actor_type: { type: 'string', enum: ['client', 'user', 'system', 'webhook'], description: 'Kind of actor.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    actor_id: { type: 'string', description: 'Client or user id, or `system`.', serverOwned: true, filterable: true, sortable: true, gdpr: 'pseudonymous' },
    client_ip: { type: 'string', description: 'Source address of the request.', serverOwned: true, nullable: true, filterable: true, gdpr: 'pseudonymous' },
    request_id: { type: 'string', description: 'Request id (also in logs).', serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
    action: { type: 'string', description: '`create`, `update`, `delete` or a sub-operation / security event name.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    resource: { type: 'string', description: 'Resource name.', serverOwned: true, filterable: true, sortable: true, gdpr: 'none' },
    record_id: { type: 'string', description: 'Affected record.', serverOwned: true, nullable: true, filterable: true, gdpr: 'pseudonymous' },
    old_values: {
      type: 'object',
      description: 'Changed fields before (full snapshot on delete). Sensitive fields of the audited resource are shown only to readers holding their read capability.',
      serverOwned: true,
      nullable: true,
      gdpr: 'personal',
      valuesOf: 'resource',
    },
    new_values: {
      type: 'object',
      description: 'Changed fields after. Sensitive fields of the audited resource are shown only to readers holding their read capability.',
      serverOwned: true,
      nullable: true,
      gdpr: 'personal',
      valuesOf: 'resource',
    },
  },
});
