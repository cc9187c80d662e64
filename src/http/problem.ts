import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from './errors.js';

export const problemContentType = 'application/problem+json; charset=utf-8';

/** The RFC 9457 document for an error: generic title, safe detail, stable `code`. */
export function problemBody(error: ApiError, instance: string): Record<string, unknown> {
  return {
    type: `https://booking.example/problems/${error.code.replaceAll('_', '-')}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    instance,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extensions,
  };
}

/** Sends an error as problem+json with its headers. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .header('content-type', problemContentType)
    .send(problemBody(error, request.url.split('?')[0] ?? '/'));
}
