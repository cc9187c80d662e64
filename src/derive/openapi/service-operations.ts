import { problems } from './problems.js';
import { operationKey, ref } from './types.js';
import type { OpenApiObject, Operation, Schema } from './types.js';

/** Schemas of the operational and discovery routes. */
export const serviceSchemas: Record<string, Schema> = {
  Health: {
    type: 'object',
    description: 'draft-inadarei-api-health-check response.',
    properties: {
      status: { type: 'string', enum: ['pass', 'fail'] },
      checks: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'object', properties: { status: { type: 'string', enum: ['pass', 'fail'] }, output: { type: 'string' } }, required: ['status'] } },
      },
    },
    required: ['status'],
  },
  CapabilityList: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, resource: { type: 'string' }, description: { type: 'string' } }, required: ['name', 'resource', 'description'] },
      },
      total: { type: 'integer', minimum: 0 },
      roles: {
        type: 'array',
        description: 'The end-user roles (`users.role`): the capabilities of their tokens, and which records they reach (`own`: only records naming the user; `tenant`: the whole tenant).',
        items: {
          type: 'object',
          properties: { name: { type: 'string', enum: ['guest', 'staff', 'admin'] }, reach: { type: 'string', enum: ['own', 'tenant'] }, capabilities: { type: 'array', items: { type: 'string' } } },
          required: ['name', 'reach', 'capabilities'],
        },
      },
    },
    required: ['items', 'total', 'roles'],
  },
  Jwks: {
    type: 'object',
    description: 'RFC 7517 JWK set of the access-token verification keys (ES512).',
    properties: { keys: { type: 'array', items: { type: 'object', properties: { kid: { type: 'string' }, kty: { type: 'string' }, alg: { type: 'string' } }, required: ['kty'] } } },
    required: ['keys'],
  },
  SecurityQuestionnaire: {
    type: 'array',
    description: "Pre-filled answers of a vendor security questionnaire, drawn from the running deployment's posture.",
    items: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        question: { type: 'string' },
        answer: { type: 'string' },
        evidence: { type: 'string', description: 'Where a reviewer can verify the answer: posture members and documentation.' },
      },
      required: ['id', 'question', 'answer', 'evidence'],
    },
  },
  AuthorizationServerMetadata: {
    type: 'object',
    description: 'RFC 8414 metadata of the issuer `{PUBLIC_URL}/v1`.',
    properties: {
      issuer: { type: 'string', format: 'uri' },
      token_endpoint: { type: 'string', format: 'uri' },
      jwks_uri: { type: 'string', format: 'uri' },
      scopes_supported: { type: 'array', items: { type: 'string' } },
    },
    required: ['issuer', 'token_endpoint', 'jwks_uri'],
  },
};

function get(path: string, operationId: string, summary: string, tag: string, content: OpenApiObject, extra: Partial<Operation> = {}): [string, Operation] {
  return [operationKey('GET', path), { operationId, summary, tags: [tag], responses: { 200: { description: summary, content } }, ...extra }];
}

const jsonOf = (name: string) => ({ 'application/json': { schema: ref('schemas', name) } });
const healthJson = { 'application/health+json': { schema: ref('schemas', 'Health') } };
const cached = { 'Cache-Control': ref('headers', 'Cache-Control') };

/**
 * Health, discovery and documentation routes, and those the contract names for the
 * operational surface (security posture, status page, metrics). An entry is only used
 * when the route is registered.
 */
export function serviceOperations(): [string, Operation][] {
  const metadata = jsonOf('AuthorizationServerMetadata');
  return [
    get('/health', 'health', 'Liveness', 'operations', healthJson),
    [
      operationKey('GET', '/ready'),
      {
        operationId: 'ready',
        summary: 'Readiness: database reachable and migrations applied',
        tags: ['operations'],
        responses: { 200: { description: 'Ready.', content: healthJson }, 503: { description: 'Not ready (database, migrations, or shutting down).', content: healthJson } },
      },
    ],
    get('/.well-known/jwks.json', 'jwks', 'Access-token verification keys', 'discovery', { 'application/jwk-set+json': { schema: ref('schemas', 'Jwks') } }),
    get('/.well-known/oauth-authorization-server/v1', 'authorization_server_metadata', 'RFC 8414 authorization server metadata', 'discovery', metadata),
    get('/.well-known/oauth-authorization-server', 'authorization_server_metadata_root', 'RFC 8414 metadata (without the issuer path)', 'discovery', metadata),
    get('/.well-known/security.txt', 'security_txt', 'RFC 9116 security contact', 'discovery', { 'text/plain': { schema: { type: 'string' } } }),
    get('/v1/capabilities', 'list_capabilities', "Every capability, derived from the registry, and the end-user roles' capability sets", 'discovery', jsonOf('CapabilityList')),
    get(
      '/v1/openapi.json',
      'openapi',
      'This OpenAPI document',
      'discovery',
      { 'application/json': { schema: { type: 'object' } } },
      {
        responses: { 200: { description: 'The OpenAPI 3.1 document.', headers: cached, content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    ),
    get('/docs', 'docs', 'Rendered API documentation (Swagger UI)', 'discovery', { 'text/html': { schema: { type: 'string' } } }),
    [
      operationKey('GET', '/'),
      {
        operationId: 'root',
        summary: 'Redirects to the rendered API documentation',
        tags: ['discovery'],
        responses: { 302: { description: 'To `/docs`.', headers: { Location: { description: 'Always `/docs`.', schema: { type: 'string', format: 'uri-reference' } } } } },
      },
    ],
    get('/v1/security/json', 'security_posture', 'Security posture', 'security', { 'application/json': { schema: { type: 'object' } } }),
    get('/v1/security/sbom', 'security_sbom', 'Software bill of materials (CycloneDX JSON)', 'security', {
      'application/vnd.cyclonedx+json': { schema: { type: 'object' } },
      'application/json': { schema: { type: 'object' } },
    }),
    get('/v1/security/questionnaire', 'security_questionnaire', 'Pre-filled security questionnaire', 'security', jsonOf('SecurityQuestionnaire')),
    get('/status', 'status_page', 'Public status page', 'operations', { 'text/html': { schema: { type: 'string' } } }),
    get('/admin', 'admin_console', 'Administration console (single-page app; sign-in by e-mail one-time password and TOTP)', 'operations', { 'text/html': { schema: { type: 'string' } } }),
    get(
      '/admin/assets/{file}',
      'admin_console_asset',
      'A content-hashed script or style sheet of the administration console',
      'operations',
      { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
      {
        parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
      },
    ),
    get(
      '/metrics',
      'metrics',
      'Prometheus metrics',
      'operations',
      { 'text/plain': { schema: { type: 'string' } } },
      {
        description: 'Not an OAuth route: `Authorization: Bearer <METRICS_TOKEN>`, or no header from a network in `METRICS_ALLOW` (docs/operations.md).',
        security: [{ metricsToken: [] }, {}],
        responses: { 200: { description: 'Prometheus text exposition.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...problems('401', '403') },
      },
    ),
  ];
}
