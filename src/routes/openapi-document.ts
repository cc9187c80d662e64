import type { Config } from '../config/config.js';
import type { RouteInfo } from '../http/route-catalogue.js';
import { actions } from '../actions/index.js';
import { resources } from '../registry/index.js';
import { authOperations, authSchemas } from './openapi-auth-operations.js';
import { headerComponents, parameterComponents } from '../derive/openapi/headers.js';
import { whereParameter } from '../derive/openapi/list-parameters.js';
import { problemResponseComponents, problemSchema, problems } from '../derive/openapi/problems.js';
import type { ActionDef } from '../actions/action.js';
import type { ErrorCode } from '../http/errors.js';
import { resourceSchemas } from '../derive/openapi/resource-schemas.js';
import { openApiPath, routePaths } from './openapi-route-paths.js';
import { securitySchemes } from './openapi-security-schemes.js';
import { serviceOperations, serviceSchemas } from '../derive/openapi/service-operations.js';
import { operationKey } from '../derive/openapi/types.js';
import type { OpenApiDocument, Operation } from '../derive/openapi/types.js';

export type { OpenApiDocument } from '../derive/openapi/types.js';

/**
 * Version of the API contract described by the document: the major is the URL prefix
 * (`/v1`); minor releases add compatible features (docs/versioning.md).
 */
export const API_VERSION = '1.0.0';

const description = [
  'Multi-tenant machine-to-machine booking API. Every resource lives under `/v1/{resource}`;',
  'every path also answers with a trailing slash, and collections declare that form (`/v1/products/`) as operations of their own. Errors are RFC 9457 problem documents',
  '(`application/problem+json`) with a stable `code`; the token endpoint answers RFC 6749 errors.',
  'Access is deny-by-default: each operation names the capability (OAuth scope) it needs in',
  '`x-capability`. Fields carry their GDPR class in `x-gdpr`; sensitive fields (`x-sensitive`)',
  'need the capabilities in `x-capability-read` / `x-capability-write`.',
  'Versioning: breaking changes only in a new major version (`/v2`); deprecated operations are',
  'announced 12 months ahead with `Deprecation`, `Sunset` and `Link: rel="deprecation"` headers.',
].join(' ');

const otherTags = [
  { name: 'auth', description: 'Token endpoint (client credentials, private_key_jwt, DPoP).' },
  { name: 'discovery', description: 'Capabilities, keys, metadata and this document.' },
  { name: 'operations', description: 'Health, readiness, status and metrics.' },
  { name: 'security', description: 'Security posture, SBOM and questionnaire.' },
  { name: 'other', description: 'Routes without a detailed description.' },
];

/** What the document learns from the running services rather than from the declarations. */
export interface OperationFacts {
  /** The 409 codes an update of the resource may answer (its hooks' checks). */
  readonly updateConflicts?: (resource: string) => readonly ErrorCode[];
}

/** An action's operation, with the 409 of an update whose resource checks can refuse it. */
function detailed(action: ActionDef, facts: OperationFacts): Operation {
  const codes = action.name === 'update' ? (facts.updateConflicts?.(action.resource) ?? []) : [];
  if (codes.length === 0) return action.openapi;
  const conflicts = `Refused with 409 (${codes.map((code) => `\`${code}\``).join(', ')}) when the change would break the resource's rules.`;
  return {
    ...action.openapi,
    description: [action.openapi.description, conflicts].filter(Boolean).join(' '),
    responses: { ...action.openapi.responses, ...problems('409') },
  };
}

/**
 * The OpenAPI 3.1 document of the service, derived from the registry and the routes the
 * application registered (a pure function: the same inputs give the same document).
 * Each route becomes an operation, detailed from its action declaration (resource
 * operations and sub-operations) or from the service catalogue; access (`security`,
 * `x-capability`) and deprecation come from each route's own config.
 */
export function buildOpenApi(config: Config, routes: readonly RouteInfo[], facts: OperationFacts = {}): OpenApiDocument {
  const declared = actions.map((action) => [operationKey(action.method, openApiPath(action.path)), detailed(action, facts)] as const);
  const known = new Map([...declared, ...authOperations(), ...serviceOperations()]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Booking service API',
      version: API_VERSION,
      description,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: config.publicUrl, description: 'API origin (PUBLIC_URL); the API base is /v1.' }],
    tags: [...resources.map((r) => ({ name: r.name, description: r.description })), ...otherTags],
    // Deny by default: an operation without its own requirement needs a token.
    security: [{ oauth2: [] }, { bearer: [] }, { dpop: [] }],
    paths: routePaths(routes, known),
    components: {
      schemas: {
        Problem: problemSchema,
        ...Object.assign({}, ...resources.map(resourceSchemas)),
        ...authSchemas(config),
        ...serviceSchemas,
      },
      parameters: { where: whereParameter, ...parameterComponents },
      headers: headerComponents,
      responses: problemResponseComponents(),
      securitySchemes: securitySchemes(config),
    },
  };
}
