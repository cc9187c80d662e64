import { resourceOperation } from '../derive/openapi/resource-operations.js';
import { resourceSchemas, schemaName } from '../derive/openapi/resource-schemas.js';
import { serializerSchema } from '../derive/response-serializers.js';
import { reservedColumns } from '../registry/define-resource.js';
import type { Operation, ResourceDef } from '../registry/types.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef, HttpMethod } from './action.js';
import type { UnknownMembers } from './input-errors.js';

const serverOwnedMessage = 'is set by the service and cannot be written';

/**
 * How a create or update body's members outside its schema are refused: bookkeeping
 * columns and server-owned fields are the service's, create-only and write-only fields
 * cannot change; anything else is no field at all.
 */
function bodyMembers(resource: ResourceDef, op: 'create' | 'update'): UnknownMembers {
  const refused: Record<string, string> = Object.fromEntries(reservedColumns.map((name) => [name, serverOwnedMessage]));
  for (const name of resource.fieldNames) {
    const field = resource.fields[name];
    if (field?.serverOwned) refused[name] = serverOwnedMessage;
    else if (op === 'update' && (field?.immutable || field?.writeOnly)) refused[name] = 'cannot be changed after creation';
  }
  return { unknown: 'is not a field of this resource', refused };
}

/**
 * The query and body each operation accepts and the JSON answer compiled into its
 * serialiser. Lists and exports parse their query language themselves (`parseListQuery`,
 * which refuses unknown names); the single-record operations and create take no parameter
 * (no query schema: the executor refuses every one).
 */
function operationSchemas(resource: ResourceDef, op: Operation): ActionDef['schemas'] {
  switch (op) {
    case 'list':
      return { query: queryParsedByHandler, response: { 200: serializerSchema(schemaName(resource, 'List')) } };
    case 'create': {
      const record = serializerSchema(schemaName(resource, 'Record'));
      const extras = Object.fromEntries(Object.keys(resource.shownOnCreate ?? {}).map((name) => [name, { type: 'string' }]));
      return {
        body: resourceSchemas(resource)[schemaName(resource, 'Create')],
        unknownMembers: bodyMembers(resource, 'create'),
        response: { 201: { ...record, properties: { ...(record.properties as object), ...extras } } },
      };
    }
    case 'read':
      return { response: { 200: serializerSchema(schemaName(resource, 'Record')) } };
    case 'delete':
      return {};
    case 'update':
      return {
        body: resourceSchemas(resource)[schemaName(resource, 'Update')],
        unknownMembers: bodyMembers(resource, 'update'),
        response: { 200: serializerSchema(schemaName(resource, 'Record')) },
      };
    case 'export':
      return { query: queryParsedByHandler };
  }
}

/**
 * Resources whose writes are administrative (docs/end-users.md "Step-up for administrative
 * actions"): a user needs a sign-in with TOTP for them (step-up, RFC 9470). User writes are
 * included for role changes.
 */
const administrative: ReadonlySet<string> = new Set(['api-clients', 'tenants', 'webhooks', 'legal-holds', 'retention-policies', 'users']);

/** The declaration fields every collection operation shares. */
function declare(resource: ResourceDef, op: Operation, method: HttpMethod, path: string): ActionDef {
  return {
    resource: resource.name,
    name: op,
    method,
    path,
    capability: `${resource.name}:${op}`,
    rateLimitGroup: op === 'export' ? 'exports' : method === 'GET' ? 'reads' : 'writes',
    authentication: 'client',
    stepUp: method !== 'GET' && administrative.has(resource.name),
    openapi: resourceOperation(resource, op),
    schemas: operationSchemas(resource, op),
  };
}

/**
 * The collection operations a resource's registry entry lists, as actions: list, create,
 * read, update, delete and export, at `/v1/{resource}` and `/v1/{resource}/{id}`. Their
 * handlers are `resourceHandlers` (`src/handlers/resource-handlers.ts`).
 */
export function resourceActions(resource: ResourceDef): ActionDef[] {
  const collection = `/v1/${resource.name}`;
  const item = `${collection}/:id`;
  const routes: Record<Operation, readonly [HttpMethod, string]> = {
    list: ['GET', collection],
    create: ['POST', collection],
    read: ['GET', item],
    update: ['PATCH', item],
    delete: ['DELETE', item],
    export: ['GET', `${collection}/export`],
  };
  return resource.operations.map((op) => declare(resource, op, ...routes[op]));
}
