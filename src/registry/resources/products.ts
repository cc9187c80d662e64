import { defineResource } from '../define-resource.js';

export const products = defineResource({
  name: 'products',
  table: 'products',
  description: 'A bookable product: a place or item with a number of units.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  fields: {
    name: { type: 'string', description: 'Display name.', required: true, maxLength: 200, filterable: true, sortable: true, gdpr: 'none' },
    description: { type: 'string', description: 'Long description.', maxLength: 5000, nullable: true, gdpr: 'none' },
    address: { type: 'string', description: 'Street address.', required: true, maxLength: 300, filterable: true, gdpr: 'none' },
    city: { type: 'string', description: 'City.', required: true, maxLength: 120, filterable: true, sortable: true, gdpr: 'none' },
    zip_code: { type: 'string', description: 'Postal code.', required: true, maxLength: 20, filterable: true, sortable: true, gdpr: 'none' },
    country: { type: 'string', description: 'ISO 3166-1 alpha-2 country code.', maxLength: 2, nullable: true, filterable: true, gdpr: 'none' },
    total_items: { type: 'integer', description: 'Number of bookable units.', required: true, minimum: 0, maximum: 1_000_000, filterable: true, sortable: true, gdpr: 'none' },
    status: { type: 'string', description: 'Lifecycle state.', enum: ['active', 'maintenance', 'retired'], default: 'active', filterable: true, sortable: true, gdpr: 'none' },
    time_zone: {
      type: 'string',
      format: 'time-zone',
      description: 'IANA time zone of the product: its availability days and hours are local to it.',
      default: 'UTC',
      maxLength: 64,
      filterable: true,
      gdpr: 'none',
    },
    is_published: {
      type: 'boolean',
      description: 'Whether end users (guest role) may book it; the availability search shows them published products only. API clients and staff may book it either way.',
      default: false,
      filterable: true,
      sortable: true,
      gdpr: 'none',
    },
  },
});
