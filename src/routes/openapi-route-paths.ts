import type { RouteInfo } from '../http/route-catalogue.js';
import { problems } from '../derive/openapi/problems.js';
import { requiresCapability } from './openapi-security-schemes.js';
import { operationKey, ref } from '../derive/openapi/types.js';
import type { KnownOperations, OpenApiObject, Operation, PathItem } from '../derive/openapi/types.js';

/** Fastify's `/v1/products/:id` as an OpenAPI path template, `/v1/products/{id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** An operation for a route the generator knows nothing more about: its method, path and access. */
function genericOperation(method: string, path: string): Operation {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const operation: Operation = {
    operationId: `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, '_')}`.replace(/_+$/, ''),
    summary: `${method} ${path}`,
    tags: ['other'],
    responses: { 200: { description: 'Success.' } },
  };
  if (names.length > 0) operation.parameters = names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  return operation;
}

/** Deprecation headers on every response of a deprecated operation. */
function markDeprecated(operation: Operation, route: RouteInfo): void {
  const notice = route.config.deprecated;
  if (!notice) return;
  operation.deprecated = true;
  const link = notice.link ? ` See ${notice.link}.` : '';
  operation.description = `${operation.description ?? ''}\n\n**Deprecated** since ${notice.since}; sunset ${notice.sunset}.${link}`.trim();
  for (const [status, response] of Object.entries(operation.responses)) {
    if ('$ref' in response) continue;
    const headers = { ...(response.headers as OpenApiObject | undefined), Deprecation: ref('headers', 'Deprecation'), Sunset: ref('headers', 'Sunset'), Link: ref('headers', 'Link') };
    operation.responses[status] = { ...response, headers };
  }
}

/** Access: public routes need nothing; the others their capability, the tenant and DPoP headers and the auth problems. */
function secure(operation: Operation, route: RouteInfo): void {
  const capability = route.config.capability;
  if (route.config.anyUser === true) {
    // Any signed-in end user's token; no capability.
    operation.security = [{ bearer: [] }];
    operation.responses = { ...operation.responses, ...problems('401') };
    return;
  }
  if (route.config.public === true || capability === undefined) {
    // Public to the token pipeline; a route with its own guard (metrics) documents it.
    operation.security ??= [];
    return;
  }
  operation.security = requiresCapability(capability);
  operation['x-capability'] = capability;
  operation.parameters = [...(operation.parameters ?? []), ref('parameters', 'XTenantId'), ref('parameters', 'DPoP')];
  operation.responses = { ...operation.responses, ...problems('401', '403') };
  if (route.method === 'POST') idempotent(operation);
}

/** POSTs of authenticated callers accept an `Idempotency-Key` (src/http/idempotency.ts). */
function idempotent(operation: Operation): void {
  operation.parameters = [...(operation.parameters ?? []), ref('parameters', 'IdempotencyKey')];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2') || '$ref' in response) continue;
    operation.responses[status] = { ...response, headers: { ...(response.headers as OpenApiObject | undefined), 'Idempotency-Replayed': ref('headers', 'Idempotency-Replayed') } };
  }
  operation.responses = { ...operation.responses, ...problems('409', '422') };
}

/**
 * The `paths` of the document: one operation per registered route and method, described
 * from `known` where the registry or the service catalogue knows it, generically
 * otherwise, so no registered route is ever missing. Access and deprecation always come
 * from the route's own config. Wildcard routes (static assets) cannot be expressed as an
 * OpenAPI path and are left out.
 */
export function routePaths(routes: readonly RouteInfo[], known: KnownOperations): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  const sorted = [...routes].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
  for (const route of sorted) {
    if (route.method === 'HEAD' || route.url.includes('*')) continue;
    const path = openApiPath(route.url);
    const template = known.get(operationKey(route.method, path));
    // A copy of what access and deprecation rewrite (the operation's own members and its
    // responses), so two routes or two builds never alter the declaration. Schemas are not
    // copied: the document prints the very objects the executor enforces.
    const operation: Operation = template ? { ...template, responses: { ...template.responses } } : genericOperation(route.method, path);
    secure(operation, route);
    // Every endpoint group is rate limited; the token endpoint documents its own (OAuth) 429.
    operation.responses = { ...problems('429'), ...operation.responses, ...problems('default') };
    markDeprecated(operation, route);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  return withTrailingSlashCollections(paths);
}

/** The methods of a collection: its list and its create. */
const collectionMethods = ['get', 'post'] as const;

/**
 * `/v1/products/` beside `/v1/products`: the router ignores a trailing slash (src/app.ts), and
 * clients write the collection form, so each collection's list and create are also declared
 * there, under their own operationId (`list_products_trailing_slash`) and `x-alias-of` naming
 * the canonical one. Without them a validator takes `/v1/products/` for `/v1/products/{id}`
 * with an empty id (docs/api.md "The OpenAPI document"). A collection is a path with a
 * templated child (`/v1/products/{id}`); other paths answer with a trailing slash too but are
 * not declared twice.
 */
function withTrailingSlashCollections(paths: Readonly<Record<string, PathItem>>): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  const all = Object.keys(paths);
  for (const [path, item] of Object.entries(paths)) {
    out[path] = item;
    if (!all.some((other) => other.startsWith(`${path}/{`))) continue;
    const alias: PathItem = {};
    for (const method of collectionMethods) {
      const operation = item[method];
      if (!operation) continue;
      alias[method] = {
        ...operation,
        operationId: `${operation.operationId}_trailing_slash`,
        summary: `${operation.summary} (trailing slash)`,
        description: [operation.description, `\`${operation.operationId}\` (\`${method.toUpperCase()} ${path}\`) at the collection's trailing-slash form.`].filter(Boolean).join('\n\n'),
        'x-alias-of': operation.operationId,
      };
    }
    if (Object.keys(alias).length > 0) out[`${path}/`] = alias;
  }
  return out;
}
