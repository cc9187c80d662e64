import { ref } from './types.js';
import type { Schema } from './types.js';

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
