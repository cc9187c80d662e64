import type { Config } from '../config/config.js';
import { dpopAlgorithms } from '../core/dpop-algorithms.js';
import { capabilities } from '../actions/capabilities.js';
import type { OpenApiObject } from '../derive/openapi/types.js';

/**
 * `components.securitySchemes`. The OAuth 2.0 client credentials flow issues the token;
 * `bearer` and `dpop` say how it is presented. OpenAPI has no DPoP scheme, so `dpop` is an
 * `Authorization` header described in prose.
 */
export function securitySchemes(config: Config): Record<string, OpenApiObject> {
  return {
    oauth2: {
      type: 'oauth2',
      description:
        'Client credentials grant (RFC 6749 §4.4) with `private_key_jwt` client authentication (RFC 7523): ' +
        `a signed assertion with \`aud\` = \`${config.tokenEndpoint}\`, no client secret. Scopes are capability names.`,
      flows: {
        clientCredentials: {
          tokenUrl: config.tokenEndpoint,
          scopes: Object.fromEntries(capabilities.map((c) => [c.name, c.description])),
        },
      },
    },
    bearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: `\`Authorization: Bearer <access token>\`: an ES512 JWT (RFC 9068) from ${config.tokenEndpoint}, valid ${config.accessTokenTtlSeconds} s.`,
    },
    metricsToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'The `METRICS_TOKEN` secret, for `/metrics` scrapers only (not an access token).',
    },
    dpop: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        'DPoP-bound token (RFC 9449): `Authorization: DPoP <access token>` plus a `DPoP` header holding a fresh proof JWT ' +
        `(\`typ: dpop+jwt\`, \`alg\` one of ${dpopAlgorithms}, public \`jwk\`; claims \`jti\`, \`htm\`, \`htu\`, \`iat\`, ` +
        '`ath` = base64url(SHA-256(token))). Obtained by sending a `DPoP` proof with the token request.',
    },
  };
}

/** The security requirement of a route needing `capability`: the scope, however the token is presented. */
export function requiresCapability(capability: string): Record<string, string[]>[] {
  return [{ oauth2: [capability] }, { bearer: [capability] }, { dpop: [capability] }];
}
