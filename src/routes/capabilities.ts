import type { FastifyInstance } from 'fastify';
import { capabilities } from '../actions/capabilities.js';
import { roleCapabilities, roleReach } from '../actions/roles.js';
import type { Role } from '../actions/roles.js';

/** The end-user roles with what their tokens may do and which records they reach. */
const roles = (Object.keys(roleCapabilities) as Role[]).map((name) => ({ name, reach: roleReach[name], capabilities: roleCapabilities[name] }));

/** `GET /v1/capabilities`: every capability the registry derives, and the end-user roles' sets. */
export async function capabilityRoutes(app: FastifyInstance): Promise<void> {
  app.get('/v1/capabilities', { config: { capability: 'capabilities:list' } }, async () => ({
    items: capabilities,
    total: capabilities.length,
    roles,
  }));
}
