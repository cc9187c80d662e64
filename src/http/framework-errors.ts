import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, notFound } from './errors.js';
import { sendProblem } from './problem.js';

/**
 * Fastify's `frameworkErrors` option: failures the router raises before any route or hook
 * runs (a path that is not valid percent-encoding, a path parameter longer than
 * `maxParamLength`) leave as problem documents like every other error, instead of
 * Fastify's own JSON that echoes the path. An over-long `{id}` cannot name a record: 404.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  sendProblem(request, reply, frameworkProblem(error, request));
}

function frameworkProblem(error: FastifyError, request: FastifyRequest): ApiError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return notFound();
  if (error.code === 'FST_ERR_BAD_URL') {
    return new ApiError('validation_failed', 'The path is not validly percent-encoded UTF-8', { errors: [{ field: 'path', message: 'invalid percent-encoding' }] });
  }
  request.log.error({ err: error }, 'framework error');
  return new ApiError('internal_error', 'An unexpected error occurred; the request id identifies it in the logs');
}
