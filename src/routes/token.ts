import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../security/oauth-error.js';
import type { TokenService } from '../services/token-service.js';

const formType = 'application/x-www-form-urlencoded';

/** Form fields, each exactly once (RFC 6749 §3.2: parameters must not repeat). */
function parseForm(request: FastifyRequest): Map<string, string> {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== formType) throw new OAuthError('invalid_request', `content-type ${type || '(none)'}`);
  if (typeof request.body !== 'string') throw new OAuthError('invalid_request', 'body not readable');
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(request.body)) {
    if (fields.has(key)) throw new OAuthError('invalid_request', `duplicated parameter ${key.slice(0, 40)}`);
    fields.set(key, value);
  }
  return fields;
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply.code(error.status).header('cache-control', 'no-store').header('pragma', 'no-cache').send({ error: error.error, error_description: error.description });
}

/** `POST /v1/auth/token`: form body in, token response or RFC 6749 §5.2 error out. */
export function tokenRoutes(service: TokenService) {
  return async function register(app: FastifyInstance): Promise<void> {
    // Only this route reads forms: the parser is registered inside its own encapsulated scope.
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.setErrorHandler((error, request, reply) => {
      if (error instanceof OAuthError) {
        request.log.info({ oauthError: error.error, reason: error.privateReason }, 'token request refused');
        return sendOAuthError(reply, error);
      }
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 413 || status === 400 || status === 415) {
        return sendOAuthError(reply, new OAuthError('invalid_request', (error as Error).message));
      }
      request.log.error({ err: error }, 'token endpoint failure');
      return sendOAuthError(reply, new OAuthError('server_error', 'unexpected'));
    });
    app.post('/v1/auth/token', { config: { public: true } }, async (request, reply) => {
      if (request.headers.authorization !== undefined) throw new OAuthError('invalid_request', 'Authorization header on token request');
      const proof = request.headers.dpop;
      if (Array.isArray(proof)) throw new OAuthError('invalid_dpop_proof', 'several DPoP headers');
      const response = await service.issue({ fields: parseForm(request), dpopProof: proof, sourceIp: request.ip });
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    });
  };
}
