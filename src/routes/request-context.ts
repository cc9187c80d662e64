import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import type { RequestContext } from '../core/request-context.js';

/** The service-layer view of a request that passed the security pipeline. */
export function requestContext(request: FastifyRequest): RequestContext {
  if (!request.principal) throw new ApiError('unauthenticated', 'Authentication required');
  return { principal: request.principal, clientIp: request.ip ?? null, requestId: String(request.id) };
}
