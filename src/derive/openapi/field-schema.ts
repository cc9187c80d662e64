import type { FieldDef, ResourceDef } from '../../registry/types.js';
import { erasureAction } from '../../registry/erasure-rule.js';
import { redactedValue } from '../erasure.js';
import { readFieldCapability, writeFieldCapability } from '../field-access.js';
import { ref } from './types.js';
import type { Schema } from './types.js';

/**
 * String formats: the standard JSON Schema ones where one exists, the service's own
 * (`src/actions/input-formats.ts`, enforced when input schemas are checked) otherwise,
 * with a pattern too when the check is one.
 */
const formats: Readonly<Record<NonNullable<FieldDef['format']>, Schema>> = {
  email: { format: 'email' },
  uri: { format: 'uri' },
  date: { format: 'date' },
  currency: { pattern: '^[A-Z]{3}$', format: 'currency' },
  phone: { pattern: '^\\+[1-9]\\d{6,14}$', format: 'phone' },
  cidr: { format: 'cidr', description: 'IPv4 or IPv6 CIDR (a bare address is a single host).' },
  capability: { format: 'capability', description: 'A capability name, as listed by GET /v1/capabilities.' },
  pem: { format: 'pem', description: 'A PEM document (SPKI public key).' },
  'time-zone': { format: 'iana-time-zone', description: 'An IANA time zone name (Europe/Berlin, America/New_York, UTC).' },
};

function stringSchema(def: FieldDef): Schema {
  const schema: Schema = { type: 'string' };
  if (def.maxLength !== undefined) schema.maxLength = def.maxLength;
  if (def.enum) schema.enum = [...def.enum];
  const format = def.format ? formats[def.format] : {};
  const { description: _note, ...keywords } = format;
  return { ...schema, ...keywords };
}

/** The JSON Schema of a field's non-null value. */
export function valueSchema(def: FieldDef): Schema {
  switch (def.type) {
    case 'string':
      return stringSchema(def);
    case 'reference':
      return { type: 'string', minLength: 1, 'x-references': def.references };
    case 'integer':
    case 'number': {
      const schema: Schema = { type: def.type };
      if (def.minimum !== undefined) schema.minimum = def.minimum;
      if (def.maximum !== undefined) schema.maximum = def.maximum;
      return schema;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'string_list': {
      const schema: Schema = { type: 'array', items: stringSchema(def) };
      if (def.maxItems !== undefined) schema.maxItems = def.maxItems;
      return schema;
    }
    case 'object':
      return def.shape ? (structuredClone(def.shape) as Schema) : { type: 'object' };
  }
}

/** Adds `null` to a schema's type (and enum), OpenAPI 3.1 style. */
export function nullable(schema: Schema): Schema {
  // Without a type the schema admits any JSON value, null included.
  if (schema.type === undefined) return schema;
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const out: Schema = { ...schema, type: [...types.filter((t) => t !== 'null'), 'null'] };
  if (Array.isArray(schema.enum)) out.enum = [...(schema.enum as unknown[]), null];
  return out;
}

/**
 * Shapes of computed fields, which the registry can only type as `object` (free JSON);
 * each is filled by its resource's `expand` hook.
 */
const computedShapes: Readonly<Record<string, Schema>> = {
  'api-clients.keys': { type: 'array', items: ref('schemas', 'ClientKey') },
};

/** Keywords that a redacted value (`[erased]`) would fail. */
const valueChecks: readonly string[] = ['format', 'pattern', 'enum', 'const', 'minLength'];

/**
 * A field as records read: erasure redacts some fields to a fixed marker whatever their
 * format (an erased user's `email` reads `[erased]`), so a record admits the marker beside
 * the checked value. Bodies keep the checks, which the service enforces on writes.
 */
function readable(def: FieldDef, schema: Schema): Schema {
  if (erasureAction(def) !== 'redact' || !valueChecks.some((keyword) => keyword in schema)) return schema;
  return { type: schema.type, anyOf: [schema, { const: redactedValue, description: 'The value after erasure.' }] };
}

/** Where a field schema is used: bodies carry write hints, records read hints. */
export type Usage = 'record' | 'create' | 'update';

/**
 * A field as a property of a record or body: value schema plus description, default,
 * `readOnly`/`writeOnly`, the GDPR class (`x-gdpr`) and, for sensitive fields,
 * `x-sensitive` with the capabilities that read and write it.
 */
export function fieldSchema(resource: ResourceDef, name: string, def: FieldDef, usage: Usage, nullAllowed: boolean): Schema {
  const value = computedShapes[`${resource.name}.${name}`] ?? valueSchema(def);
  const note = def.format ? formats[def.format].description : undefined;
  const stored = nullAllowed ? nullable(value) : value;
  const schema: Schema = {
    ...(usage === 'record' ? readable(def, stored) : stored),
    description: note ? `${def.description} ${String(note)}` : def.description,
    'x-gdpr': def.gdpr,
  };
  // Defaults apply to what clients may write; a server-owned field's is the service's business.
  if (usage !== 'update' && def.default !== undefined && !def.serverOwned) schema.default = Array.isArray(def.default) ? [...def.default] : def.default;
  if (usage === 'record' && (def.serverOwned || def.computed)) schema.readOnly = true;
  if (usage === 'create' && def.writeOnly) schema.writeOnly = true;
  if (usage === 'create' && def.immutable) schema['x-immutable'] = true;
  if (def.sensitive) {
    schema['x-sensitive'] = true;
    schema['x-capability-read'] = readFieldCapability(resource, name);
    schema['x-capability-write'] = writeFieldCapability(resource, name);
  }
  return schema;
}
