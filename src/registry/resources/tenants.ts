import { defineResource } from '../define-resource.js';

export const tenants = defineResource({
  name: 'tenants',
  table: 'tenants',
  description: 'A node of the tenant hierarchy below `system`: partner, parent_tenant or tenant.',
  tenancy: 'node',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    name: { type: 'string', description: 'Display name.', required: true, maxLength: 200, filterable: true, sortable: true, gdpr: 'none' },
    level: {
      type: 'string',
      description: "Hierarchy level; must be below the parent's.",
      enum: ['partner', 'parent_tenant', 'tenant'],
      default: 'tenant',
      immutable: true,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
    parent_id: {
      type: 'reference',
      references: 'tenants',
      description: "Parent node; default the caller's node (absent for nodes under system).",
      immutable: true,
      nullable: true,
      filterable: true,
      gdpr: 'none',
    },
    currency: { type: 'string', format: 'currency', description: 'Default ISO 4217 currency of amounts.', default: 'EUR', filterable: true, gdpr: 'none' },
    contact_email: { type: 'string', format: 'email', description: 'Operational contact.', maxLength: 254, nullable: true, gdpr: 'personal', erasure: 'null' },
  },
});
