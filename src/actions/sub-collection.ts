import { resourceSchemas, schemaName } from '../derive/openapi/resource-schemas.js';
import { ref } from '../derive/openapi/types.js';
import type { OpenApiObject, Schema } from '../derive/openapi/types.js';
import { reservedColumns } from '../registry/define-resource.js';
import type { Operation } from '../derive/openapi/types.js';
import type { ResourceDef } from '../registry/types.js';
import type { ActionDef, ActionSchemas, HttpMethod } from './action.js';
import type { UnknownMembers } from './input-errors.js';

/** The schemas of a sub-collection of products (rates, calendar imports), printed inline: the document's components hold the resources' only. */
export interface SubCollectionParts {
  readonly record: Schema;
  readonly createBody: Schema;
  readonly updateBody: Schema;
  /** One page of the list. */
  readonly list: Schema;
  /** Members a body may not carry: the bookkeeping columns and the server-owned fields. */
  readonly bodyMembers: UnknownMembers;
}

/** {@link SubCollectionParts} of a registry description; `noun` names one record in messages ("a rate"). */
export function subCollectionParts(def: ResourceDef, noun: string): SubCollectionParts {
  const schemas = resourceSchemas(def);
  const serverOwned = 'is set by the service and cannot be written';
  return {
    record: schemas[schemaName(def, 'Record')] as Schema,
    createBody: schemas[schemaName(def, 'Create')] as Schema,
    updateBody: schemas[schemaName(def, 'Update')] as Schema,
    list: subCollectionList(def),
    bodyMembers: {
      unknown: `is not a field of ${noun}`,
      refused: Object.fromEntries([...reservedColumns, ...def.fieldNames.filter((name) => def.fields[name]?.serverOwned)].map((name) => [name, serverOwned])),
    },
  };
}

/**
 * One page of a sub-collection, printed inline: its items are the registry's list item of
 * `def`, so a field declared there is documented here too.
 */
export function subCollectionList(def: ResourceDef): Schema {
  return {
    type: 'object',
    description: `One page of ${def.description.toLowerCase()}`,
    properties: {
      items: { type: 'array', items: resourceSchemas(def)[schemaName(def, 'ListItem')] as Schema },
      total: { type: 'integer', minimum: 0, description: 'Number of matching records.' },
      page: { type: 'integer', minimum: 1, description: 'This page, starting at 1.' },
      per_page: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size.' },
    },
    required: ['items', 'total', 'page', 'per_page'],
  };
}

/** A JSON response or request body. */
export const json = (schema: Schema): OpenApiObject => ({ 'application/json': { schema } });

/** Response headers by their shared component names (`ETag`, `Location`). */
export const headerRefs = (...names: string[]): OpenApiObject => Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

/**
 * An operation of a product's sub-collection (rates, calendar imports, the calendar feed),
 * with the product's capabilities: `products:read` to read, `products:update` to write, or
 * `capability` when a read reveals a credential (the feed URL).
 */
export function productSubAction(name: string, method: HttpMethod, path: string, openapi: Omit<Operation, 'tags'>, inputs: ActionSchemas = {}, capability?: string): ActionDef {
  return {
    resource: 'products',
    name,
    method,
    path,
    capability: capability ?? (method === 'GET' ? 'products:read' : 'products:update'),
    rateLimitGroup: method === 'GET' ? 'reads' : 'writes',
    authentication: 'client',
    stepUp: false,
    openapi: { ...openapi, tags: ['products'] },
    schemas: inputs,
  };
}
