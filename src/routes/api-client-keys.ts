import type { FastifyInstance } from 'fastify';
import { pathId } from '../http/path-id.js';
import type { ApiClientAdmin } from '../services/api-client-admin.js';
import { requestContext } from './request-context.js';

interface KeyBody {
  readonly public_key?: unknown;
  readonly kid?: unknown;
  readonly overlap_days?: unknown;
}

/** `POST /v1/api-clients/{id}/keys`: add a key; earlier keys stay valid for the overlap. */
export function apiClientKeyRoutes(admin: ApiClientAdmin) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Params: { id: string }; Body: KeyBody }>('/v1/api-clients/:id/keys', { config: { capability: 'api-clients:rotate-key' } }, async (request, reply) => {
      const result = await admin.addKey(requestContext(request), pathId(request.params.id, 'api-clients'), request.body);
      return reply.code(201).send(result);
    });
  };
}
