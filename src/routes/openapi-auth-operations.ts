import type { Config } from '../config/config.js';
import type { OAuthErrorCode } from '../security/oauth-error.js';
import { jwtBearerAssertionType } from '../services/token-service.js';
import { tokenPath } from '../core/api-paths.js';
import { addClientKeySchema, clientKeySchemas } from '../derive/openapi/client-key-schemas.js';
import { operationKey, ref } from '../derive/openapi/types.js';
import type { Operation, Schema } from '../derive/openapi/types.js';

/** Every token-endpoint error, with its status; a `Record` so a new code cannot be missed. */
const oauthErrors: Readonly<Record<OAuthErrorCode, string>> = {
  invalid_request: '400: malformed or content-encoded form body, a missing or repeated field, an Authorization header',
  invalid_client: '401: client authentication failed (unknown client or key, bad assertion, replayed jti, source address)',
  invalid_grant: '400: the grant is invalid',
  unsupported_grant_type: '400: grant_type other than client_credentials',
  invalid_scope: '400: unknown scope, or nothing requested is assigned',
  invalid_dpop_proof: '400: bad DPoP proof',
  use_dpop_nonce: '400: the DPoP proof lacks the current server nonce (see DPoP-Nonce)',
  rate_limited: '429: too many token requests; retry after Retry-After seconds',
  temporarily_unavailable: '503: the database is busy or unreachable; retry after Retry-After seconds',
  server_error: '500: unexpected failure',
};

/** Schemas of the token endpoint and of client keys. */
export function authSchemas(config: Config): Record<string, Schema> {
  return {
    TokenRequest: {
      type: 'object',
      properties: {
        grant_type: { const: 'client_credentials' },
        client_id: { type: 'string' },
        client_assertion_type: { const: jwtBearerAssertionType },
        client_assertion: {
          type: 'string',
          description: `Signed JWT (ES256/ES384/ES512): \`iss\` = \`sub\` = client_id, \`aud\` = \`${config.tokenEndpoint}\`, unique \`jti\`, \`iat\`, \`exp\` at most 300 s after \`iat\`.`,
        },
        scope: { type: 'string', description: 'Space-separated capabilities; omitted grants every assigned capability.' },
      },
      required: ['grant_type', 'client_id', 'client_assertion_type', 'client_assertion'],
      additionalProperties: false,
    },
    TokenResponse: {
      type: 'object',
      properties: {
        access_token: { type: 'string', description: 'ES512 JWT (RFC 9068).' },
        token_type: { type: 'string', enum: ['Bearer', 'DPoP'] },
        expires_in: { type: 'integer', minimum: 1, description: `Seconds; default ${config.accessTokenTtlSeconds}.` },
        scope: { type: 'string', description: 'Granted capabilities, space-separated.' },
      },
      required: ['access_token', 'token_type', 'expires_in', 'scope'],
    },
    OAuthError: {
      type: 'object',
      description: `RFC 6749 §5.2 error. ${Object.entries(oauthErrors)
        .map(([code, text]) => `\`${code}\` ${text}`)
        .join('; ')}.`,
      properties: { error: { type: 'string', enum: Object.keys(oauthErrors) }, error_description: { type: 'string' } },
      required: ['error', 'error_description'],
    },
    ...clientKeySchemas,
    AddClientKey: addClientKeySchema,
  };
}

const noStore = { 'Cache-Control': ref('headers', 'Cache-Control') };

/** The token endpoint (client key rotation is an action: `src/actions/api-client-actions.ts`). */
export function authOperations(): [string, Operation][] {
  const oauthError = { 'application/json': { schema: ref('schemas', 'OAuthError') } };
  return [
    [
      operationKey('POST', tokenPath),
      {
        operationId: 'issue_token',
        summary: 'Issue an access token (client credentials, private_key_jwt, optional DPoP)',
        tags: ['auth'],
        description: 'No `Authorization` header. Send a `DPoP` proof to receive a DPoP-bound token (`token_type: DPoP`).',
        parameters: [ref('parameters', 'DPoP')],
        requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: ref('schemas', 'TokenRequest') } } },
        responses: {
          200: { description: 'The token.', headers: noStore, content: { 'application/json': { schema: ref('schemas', 'TokenResponse') } } },
          400: {
            description: 'invalid_request, unsupported_grant_type, invalid_scope, invalid_dpop_proof, use_dpop_nonce.',
            headers: { ...noStore, 'DPoP-Nonce': ref('headers', 'DPoP-Nonce') },
            content: oauthError,
          },
          401: { description: 'invalid_client.', headers: noStore, content: oauthError },
          429: {
            description: 'rate_limited.',
            headers: { ...noStore, 'Retry-After': ref('headers', 'Retry-After'), RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') },
            content: oauthError,
          },
          500: { description: 'server_error.', headers: noStore, content: oauthError },
          503: { description: 'temporarily_unavailable.', headers: { ...noStore, 'Retry-After': ref('headers', 'Retry-After') }, content: oauthError },
        },
      },
    ],
  ];
}
