import { defineResource } from '../define-resource.js';

export const webhooks = defineResource({
  name: 'webhooks',
  table: 'webhooks',
  description: 'A webhook: outgoing (the service posts its events to `url`) or incoming (a sender such as Stripe posts to `/v1/webhooks/{id}/receive`).',
  tenancy: 'owned',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  shownOnCreate: {
    secret:
      'Signing secret (`whsec_` + base64): shown in the create answer only (not for `stripe`, whose secret the caller supplies), never readable afterwards; rotate with POST /v1/webhooks/{id}/rotate-secret.',
  },
  fields: {
    direction: {
      type: 'string',
      enum: ['outgoing', 'incoming'],
      default: 'outgoing',
      immutable: true,
      filterable: true,
      description: '`outgoing`: the service sends events to `url`; `incoming`: a sender posts to `/v1/webhooks/{id}/receive`.',
      gdpr: 'none',
    },
    url: { type: 'string', format: 'uri', description: 'Outgoing: the HTTPS endpoint that receives events (required).', nullable: true, maxLength: 2000, filterable: true, gdpr: 'none' },
    events: { type: 'string_list', description: 'Outgoing: event names delivered to the endpoint (required).', default: [], maxItems: 100, gdpr: 'none' },
    scheme: { type: 'string', enum: ['standard-webhooks', 'stripe'], nullable: true, immutable: true, description: 'Incoming: how the sender signs (required for incoming).', gdpr: 'none' },
    ip_allowlist: { type: 'string_list', format: 'cidr', default: [], maxItems: 100, description: 'Incoming: source networks (CIDR) allowed to post; empty allows any.', gdpr: 'none' },
    secret: { type: 'string', writeOnly: true, maxLength: 200, description: 'Incoming `stripe`: the endpoint secret Stripe shows (`whsec_…`). Never readable afterwards.', gdpr: 'none' },
    description: { type: 'string', description: 'Free text.', maxLength: 500, nullable: true, gdpr: 'none' },
    active: { type: 'boolean', description: 'Deliveries are paused when false.', default: true, filterable: true, gdpr: 'none' },
  },
});
