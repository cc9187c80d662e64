import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { challenge, schemeOf } from './challenge.js';
import { fromDatabase } from './database-errors.js';
import { ApiError, validationError, withHeaders } from './errors.js';
import { sendProblem } from './problem.js';

/** Fastify's own error codes, translated into our closed set. */
function fromFastify(error: FastifyError): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body exceeds the configured limit');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ field: 'body', message: 'is empty' }]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('validation_failed', 'Content-Length does not match the body');
    case 'FST_ERR_VALIDATION':
      return validationError([{ field: 'request', message: error.message }]);
  }
  // Body parse errors (JSON syntax, __proto__ poisoning) carry statusCode 400.
  if (error.statusCode === 400 && /JSON|proto|constructor/i.test(error.message)) {
    return new ApiError('malformed_json', 'The body is not valid JSON or carries forbidden keys (__proto__, constructor.prototype)');
  }
  if (error.statusCode === 413) return new ApiError('payload_too_large', 'The request body exceeds the configured limit');
  if (error.statusCode === 415) return new ApiError('unsupported_media_type', 'Unsupported content type');
  return undefined;
}

/**
 * Every failure leaves as a problem document. Transient database failures (statement
 * timeout, busy database) become a 503 with `Retry-After`; unexpected errors are logged
 * with their stack and answered with a generic 500: no stack, SQL or path reaches the client.
 */
export function errorHandler(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let known = error instanceof ApiError ? error : (fromFastify(error) ?? fromDatabase(error));
  if (!known) {
    request.log.error({ err: error }, 'unhandled error');
    known = new ApiError('internal_error', 'An unexpected error occurred; the request id identifies it in the logs');
  } else if (known.status >= 500 || known.privateReason) {
    request.log.warn({ code: known.code, reason: known.privateReason, err: known.status >= 500 ? error : undefined }, 'request refused');
  }
  const missing = known.missingCapabilities;
  if (missing?.length && known.headers['www-authenticate'] === undefined) {
    known = withHeaders(known, { 'www-authenticate': challenge(schemeOf(request), 'insufficient_scope', { scope: missing.join(' ') }) });
  }
  return sendProblem(request, reply, known);
}
