import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

type Done = (error: Error | null, body?: unknown) => void;
type Parse = (request: FastifyRequest, body: string, done: Done) => void;

/** A DELETE carries no content; some clients still label its empty body with a type. */
function isEmptyDelete(request: FastifyRequest, body: string): boolean {
  return request.method === 'DELETE' && body === '';
}

/**
 * Makes JSON the only body format in the calling plugin's (encapsulated) scope: Fastify's
 * JSON parser with `__proto__` / `constructor.prototype` refused, and a 415 for every
 * other content type (Fastify would otherwise read text/plain bodies and answer a
 * confusing 400). An empty DELETE body is accepted whatever its declared type.
 */
export function installJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error') as Parse;
  app.removeAllContentTypeParsers();
  // `parseAs: 'string'` hands over strings; String() only narrows the declared type.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Kept for signature checks over the exact bytes (incoming webhooks).
    request.rawBody = String(body);
    if (isEmptyDelete(request, String(body))) done(null, undefined);
    else parseJson(request, String(body), done);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (isEmptyDelete(request, String(body))) done(null, undefined);
    else done(new ApiError('unsupported_media_type', 'Send the body as application/json'), undefined);
  });
}
