import { addClientKeySchema } from '../derive/openapi/client-key-schemas.js';
import { problems } from '../derive/openapi/problems.js';
import { ref } from '../derive/openapi/types.js';
import { serializerSchema } from '../derive/response-serializers.js';
import type { ActionDef } from './action.js';

/** `POST /v1/api-clients/{id}/keys`: add a public key; earlier keys stay valid for the overlap. */
export const rotateClientKey: ActionDef = {
  resource: 'api-clients',
  name: 'rotate-key',
  method: 'POST',
  path: '/v1/api-clients/:id/keys',
  capability: 'api-clients:rotate-key',
  rateLimitGroup: 'writes',
  authentication: 'client',
  stepUp: true,
  openapi: {
    operationId: 'rotate_key_api_clients',
    summary: 'Add a public key to a client (rotation with overlap)',
    tags: ['api-clients'],
    description:
      'Earlier keys get `active_until` = now + overlap; both work until then. A key for a client is control over it: the caller must hold every capability of the client (403 `insufficient_scope` naming those it lacks).',
    parameters: [ref('parameters', 'id')],
    requestBody: { required: true, content: { 'application/json': { schema: ref('schemas', 'AddClientKey') } } },
    responses: {
      201: { description: 'The key was added.', content: { 'application/json': { schema: ref('schemas', 'AddClientKeyResult') } } },
      ...problems('400', '404', '413', '415'),
    },
  },
  schemas: { body: addClientKeySchema, response: { 201: serializerSchema('AddClientKeyResult') } },
};
