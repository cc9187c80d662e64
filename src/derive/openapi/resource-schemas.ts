import type { FieldDef, ResourceDef } from '../../registry/types.js';
import { fieldSchema } from './field-schema.js';
import type { Usage } from './field-schema.js';
import { ref } from './types.js';
import type { Schema } from './types.js';

/** The component schemas generated per resource. */
export type SchemaKind = 'Record' | 'ListItem' | 'List' | 'Create' | 'Update';

/** Component name of a resource schema: `service-charges` + `Create` → `ServiceChargesCreate`. */
export function schemaName(resource: ResourceDef, kind: SchemaKind): string {
  const pascal = resource.name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  return `${pascal}${kind}`;
}

/** Records of the root node (`system`) and top-level tenant nodes are stored without owner. */
function ownerMayBeAbsent(resource: ResourceDef): boolean {
  return resource.systemOwned === true || resource.tenancy === 'node';
}

const common: readonly string[] = ['_id', 'tenant_id', 'created_at', 'updated_at'];

/**
 * Fields every full record carries: the common ones, and the client-writable ones a create
 * always sets (required or defaulted). Sensitive fields are left out because they are
 * removed for callers without their read capability; optional fields without a default
 * can be absent from a create response; other server-owned fields are set by hooks, if at all.
 */
function alwaysPresent(name: string, def: FieldDef): boolean {
  if (common.includes(name)) return true;
  if (def.sensitive || def.writeOnly || def.serverOwned) return false;
  return def.required === true || def.default !== undefined;
}

/**
 * Whether a record may hold `null` in the field: declared nullable; the owner of records of
 * the root node; or a server-owned field with a default, because the create path applies
 * defaults only to client-writable fields.
 */
function nullInRecord(resource: ResourceDef, name: string, def: FieldDef): boolean {
  if (def.nullable === true) return true;
  if (name === 'tenant_id') return ownerMayBeAbsent(resource);
  return def.serverOwned === true && def.default !== undefined && !common.includes(name);
}

function properties(resource: ResourceDef, usage: Usage, include: (def: FieldDef) => boolean): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const name of resource.fieldNames) {
    const def = resource.fields[name];
    if (!def || !include(def)) continue;
    const nullAllowed = usage === 'record' ? nullInRecord(resource, name, def) : def.nullable === true;
    out[name] = fieldSchema(resource, name, def, usage, nullAllowed);
  }
  return out;
}

const built = new WeakMap<ResourceDef, Readonly<Record<string, Schema>>>();

/**
 * Record, list and body schemas of a resource. Records are open (`additionalProperties`
 * is not restricted) because adding a response field is a compatible change within a major
 * version; bodies are closed, as the service refuses unknown fields. Built once per
 * resource: the create and update actions enforce the very body objects OpenAPI prints.
 */
export function resourceSchemas(resource: ResourceDef): Readonly<Record<string, Schema>> {
  let schemas = built.get(resource);
  if (!schemas) {
    schemas = Object.freeze(buildSchemas(resource));
    built.set(resource, schemas);
  }
  return schemas;
}

function buildSchemas(resource: ResourceDef): Record<string, Schema> {
  const readable = properties(resource, 'record', (def) => def.writeOnly !== true);
  const schemas: Record<string, Schema> = {
    [schemaName(resource, 'Record')]: {
      type: 'object',
      description: resource.description,
      properties: readable,
      required: resource.fieldNames.filter((name) => {
        const def = resource.fields[name];
        return def !== undefined && alwaysPresent(name, def);
      }),
    },
    [schemaName(resource, 'ListItem')]: {
      type: 'object',
      description: `${resource.description} In lists, \`fields\` may select a subset; \`_id\` is always present.`,
      properties: readable,
      required: ['_id'],
    },
    [schemaName(resource, 'List')]: {
      type: 'object',
      description: 'One page of matching records.',
      properties: {
        items: { type: 'array', items: ref('schemas', schemaName(resource, 'ListItem')) },
        total: { type: 'integer', minimum: 0, description: 'Number of matching records.' },
        page: { type: 'integer', minimum: 1, description: 'This page, starting at 1.' },
        per_page: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size.' },
      },
      required: ['items', 'total', 'page', 'per_page'],
    },
  };
  if (resource.operations.includes('create')) {
    schemas[schemaName(resource, 'Create')] = {
      type: 'object',
      description: `Create body of ${resource.name}. Server-owned fields are refused (400).`,
      properties: properties(resource, 'create', (def) => def.serverOwned !== true),
      required: resource.fieldNames.filter((name) => resource.fields[name]?.required === true && resource.fields[name]?.serverOwned !== true),
      additionalProperties: false,
    };
  }
  if (resource.operations.includes('update')) {
    schemas[schemaName(resource, 'Update')] = {
      type: 'object',
      description: `Update body of ${resource.name}: only the fields to change. Server-owned, create-only and write-only fields are refused (400).`,
      properties: properties(resource, 'update', (def) => !def.serverOwned && !def.immutable && !def.writeOnly),
      minProperties: 1,
      additionalProperties: false,
    };
  }
  return schemas;
}
