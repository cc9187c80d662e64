import type { FastifyInstance } from 'fastify';
import { capabilities } from '../derive/capabilities.js';

/** `GET /v1/capabilities`: every capability the registry derives. */
export async function capabilityRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/capabilities', { config: { capability: 'capabilities:list' } }, async () => ({
    items: capabilities,
    total: capabilities.length,
  }));
}
