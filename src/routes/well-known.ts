import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { capabilities } from '../actions/capabilities.js';
import type { SigningKeyStore } from '../security/signing-keys.js';
import { dpopAlgorithms } from '../core/dpop-algorithms.js';

/** JWKS and RFC 8414 authorization server metadata. */
export function wellKnownRoutes(config: Config, keys: SigningKeyStore) {
  const metadata = {
    issuer: config.apiBase,
    token_endpoint: config.tokenEndpoint,
    jwks_uri: `${config.publicUrl}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    response_types_supported: [],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: ['ES256', 'ES384', 'ES512'],
    dpop_signing_alg_values_supported: dpopAlgorithms.split(' '),
    scopes_supported: capabilities.map((c) => c.name),
    service_documentation: `${config.apiBase}/openapi.json`,
  };
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/.well-known/jwks.json', { config: { public: true } }, async (_request, reply) => {
      return reply.header('content-type', 'application/jwk-set+json').header('cache-control', 'public, max-age=300').send(keys.publicJwks());
    });
    for (const path of ['/.well-known/oauth-authorization-server/v1', '/.well-known/oauth-authorization-server']) {
      app.get(path, { config: { public: true } }, async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(metadata));
    }
  };
}
