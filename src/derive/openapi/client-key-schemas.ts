import { ref } from './types.js';
import type { Schema } from './types.js';

/**
 * The body of `POST /v1/api-clients/{id}/keys`: declared once, enforced by the action
 * executor, printed as the `AddClientKey` component.
 */
export const addClientKeySchema: Schema = {
  type: 'object',
  properties: {
    public_key: { type: 'string', maxLength: 4000, description: 'SPKI PEM, EC P-256/P-384/P-521.' },
    kid: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$', description: 'Printable ASCII without spaces. Default: the RFC 7638 thumbprint.' },
    overlap_days: { type: 'integer', minimum: 0, maximum: 365, description: 'Days earlier keys stay valid; default `KEY_OVERLAP_DAYS` (30 unless configured).' },
  },
  required: ['public_key'],
  additionalProperties: false,
};

/** Schemas of client keys as the API returns them (also compiled into response serialisers). */
export const clientKeySchemas: Record<string, Schema> = {
  ClientKey: {
    type: 'object',
    properties: {
      kid: { type: 'string' },
      alg: { type: 'string', enum: ['ES256', 'ES384', 'ES512'] },
      thumbprint: { type: 'string', description: 'RFC 7638 JWK thumbprint.' },
      created_at: { type: 'string', format: 'date-time' },
      active_until: { type: ['string', 'null'], format: 'date-time', description: 'End of validity after a rotation; null while current.' },
    },
    required: ['kid', 'alg', 'thumbprint', 'created_at', 'active_until'],
  },
  AddClientKeyResult: {
    type: 'object',
    properties: {
      client_id: { type: 'string' },
      kid: { type: 'string' },
      key: ref('schemas', 'ClientKey'),
      retired: { type: 'array', items: { type: 'object', properties: { kid: { type: 'string' }, active_until: { type: 'string', format: 'date-time' } }, required: ['kid', 'active_until'] } },
    },
    required: ['client_id', 'kid', 'key', 'retired'],
  },
};
