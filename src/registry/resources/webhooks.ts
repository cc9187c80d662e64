import { defineResource } from '../define-resource.js';

export const webhooks = defineResource({
  name: 'webhooks',
  table: 'webhooks',
  description: 'An outgoing webhook subscription.',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  shownOnCreate: { secret: 'Signing secret (`whsec_` + base64): shown in the create answer only, never readable afterwards; rotate with POST /v1/webhooks/{id}/rotate-secret.' },
  fields: {
    url: { type: 'string', format: 'uri', description: 'HTTPS endpoint that receives events.', required: true, maxLength: 2000, filterable: true, gdpr: 'none' },
    events: { type: 'string_list', description: 'Event names delivered to the endpoint.', required: true, maxItems: 100, gdpr: 'none' },
    description: { type: 'string', description: 'Free text.', maxLength: 500, nullable: true, gdpr: 'none' },
    active: { type: 'boolean', description: 'Deliveries are paused when false.', default: true, filterable: true, gdpr: 'none' },
  },
});
