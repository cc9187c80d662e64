import { isUtf8 } from 'node:buffer';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tokenPath } from '../core/api-paths.js';
import { charsets, contentCodings } from '../http/body-encoding.js';
import { fromDatabase } from '../http/database-errors.js';
import { ApiError } from '../http/errors.js';
import { badlyEncodedParameters } from '../http/query-encoding.js';
import { OAuthError } from '../security/oauth-error.js';
import type { TokenService } from '../services/token-service.js';

const formType = 'application/x-www-form-urlencoded';

/** Form fields of a plain (unencoded) form body, each exactly once (RFC 6749 §3.2: parameters must not repeat). */
function parseForm(request: FastifyRequest): Map<string, string> {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (type !== formType) throw new OAuthError('invalid_request', `content-type ${type || '(none)'}`);
  // The form is UTF-8 (RFC 6749 appendix B); a body declared otherwise would be read as what it is not.
  const charset = charsets(request.headers['content-type']).find((name) => name !== 'utf-8');
  if (charset !== undefined) throw new OAuthError('invalid_request', `charset ${charset.slice(0, 40)}: the form must be UTF-8`);
  // An encoded form (gzip, …) is not a form the endpoint can read: malformed, as RFC 6749 §5.2 names it.
  const codings = contentCodings(request.headers['content-encoding']);
  if (codings.length > 0) throw new OAuthError('invalid_request', `content-encoding ${codings.join(', ').slice(0, 100)}`);
  if (typeof request.body !== 'string') throw new OAuthError('invalid_request', 'body not readable');
  // URLSearchParams would quietly turn bad escapes into U+FFFD and answer for a mangled value.
  const badlyEncoded = badlyEncodedParameters(request.body);
  if (badlyEncoded.length > 0) throw new OAuthError('invalid_request', `invalid percent-encoding in ${badlyEncoded.map((e) => e.field.slice(0, 40)).join(', ')}`);
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(request.body)) {
    if (fields.has(key)) throw new OAuthError('invalid_request', `duplicated parameter ${key.slice(0, 40)}`);
    fields.set(key, value);
  }
  return fields;
}

/**
 * Any failure at this endpoint as an RFC 6749 §5.2 error. Refusals raised by app-wide hooks
 * (the rate limiter's ApiError) keep their status and headers; Fastify's own 4xx refusals
 * (body too large, bad Content-Length, unparsable JSON) are a malformed request; a busy or
 * unreachable database is a 503 `temporarily_unavailable`, as on every other route.
 */
function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (!(error instanceof ApiError)) error = fromDatabase(error) ?? error;
  if (error instanceof ApiError) {
    const code = error.status === 429 ? 'rate_limited' : error.status === 503 ? 'temporarily_unavailable' : error.status < 500 ? 'invalid_request' : 'server_error';
    return new OAuthError(code, error.privateReason ?? error.message, { cause: error, headers: error.headers });
  }
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return new OAuthError('invalid_request', (error as Error).message, { cause: error });
  return new OAuthError('server_error', 'unexpected', { cause: error });
}

/** `{ error, error_description }` only, never cached. */
function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply.code(error.status).headers(error.headers).header('cache-control', 'no-store').header('pragma', 'no-cache').send(error.toBody());
}

/** `POST /v1/auth/token`: form body in, token response or RFC 6749 §5.2 error out. */
export function tokenRoutes(service: TokenService) {
  return async function register(app: FastifyInstance): Promise<void> {
    // Only this route reads forms: the parser is registered inside its own encapsulated scope.
    // Bytes first: a string decoder would turn invalid UTF-8 into U+FFFD and answer for a mangled value.
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
      if (isUtf8(body)) done(null, body.toString('utf8'));
      else done(new OAuthError('invalid_request', 'body not valid UTF-8'), undefined);
    });
    app.setErrorHandler((error, request, reply) => {
      const oauth = toOAuthError(error);
      if (oauth.status >= 500) request.log.error({ err: error }, 'token endpoint failure');
      else request.log.info({ oauthError: oauth.error, reason: oauth.privateReason }, 'token request refused');
      return sendOAuthError(reply, oauth);
    });
    app.post(tokenPath, { config: { public: true, rateLimitGroup: 'token' } }, async (request, reply) => {
      if (request.headers.authorization !== undefined) throw new OAuthError('invalid_request', 'Authorization header on token request');
      const proof = request.headers.dpop;
      if (Array.isArray(proof)) throw new OAuthError('invalid_dpop_proof', 'several DPoP headers');
      const response = await service.issue({ fields: parseForm(request), dpopProof: proof, sourceIp: request.ip, requestId: String(request.id) });
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    });
  };
}
