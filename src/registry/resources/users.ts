import { defineResource } from '../define-resource.js';

export const users = defineResource({
  name: 'users',
  table: 'users',
  description: 'An end user (guest, staff) of a tenant.',
  tenancy: 'owned',
  // `users:export` is the subject export (GET /v1/users/{id}/export), `users:erase` erasure:
  // both declared as actions in src/actions/gdpr-actions.ts.
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    email: {
      type: 'string',
      format: 'email',
      description: 'E-mail address (unique per tenant is not enforced).',
      required: true,
      maxLength: 254,
      sensitive: true,
      gdpr: 'personal',
      erasure: 'redact',
    },
    phone: { type: 'string', format: 'phone', description: 'Phone number, E.164.', maxLength: 20, nullable: true, sensitive: true, gdpr: 'personal', erasure: 'null' },
    first_name: { type: 'string', description: 'Given name.', maxLength: 120, nullable: true, gdpr: 'personal', erasure: 'redact' },
    last_name: { type: 'string', description: 'Family name.', maxLength: 120, nullable: true, gdpr: 'personal', erasure: 'redact' },
    date_of_birth: { type: 'string', format: 'date', description: 'Birth date (YYYY-MM-DD).', nullable: true, sensitive: true, gdpr: 'special', erasure: 'null' },
    locale: { type: 'string', description: 'BCP 47 language tag.', maxLength: 35, default: 'en', filterable: true, gdpr: 'none' },
    role: { type: 'string', description: 'Role within the tenant.', enum: ['guest', 'staff', 'admin'], default: 'guest', filterable: true, sortable: true, gdpr: 'none' },
    status: { type: 'string', description: 'Account state.', enum: ['active', 'disabled'], default: 'active', filterable: true, sortable: true, gdpr: 'none' },
    external_id: { type: 'string', description: "Identifier in the partner's system.", maxLength: 200, nullable: true, filterable: true, gdpr: 'pseudonymous' },
    totp_enabled: { type: 'boolean', description: 'TOTP second factor configured.', serverOwned: true, default: false, filterable: true, gdpr: 'none' },
    erased_at: { type: 'timestamp', description: 'Time of erasure by depersonalisation, if erased.', serverOwned: true, nullable: true, filterable: true, gdpr: 'none' },
  },
});
