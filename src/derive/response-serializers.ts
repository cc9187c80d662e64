import { resources } from '../registry/index.js';
import { clientKeySchemas } from './openapi/client-key-schemas.js';
import { resourceSchemas } from './openapi/resource-schemas.js';
import type { Schema } from './openapi/types.js';

/** Every component schema a JSON response of an action can name. */
const components: Readonly<Record<string, Schema>> = Object.freeze({ ...Object.assign({}, ...resources.map(resourceSchemas)), ...clientKeySchemas });

const refPrefix = '#/components/schemas/';

/**
 * The schema Fastify compiles into a response serialiser (fast-json-stringify), from the
 * OpenAPI component of the same name: references resolved in place, and only what shapes
 * the output kept. Objects with declared properties serialise those and nothing else, so a
 * field that is not in the API's schema can never reach a client; free-form objects (audit
 * values) pass through whole. `required` is left out on purpose: a missing field is
 * omitted, never a failed response.
 */
export function serializerSchema(name: string): Schema {
  const schema = components[name];
  if (!schema) throw new Error(`no component schema ${name}`);
  return shape(schema);
}

function shape(schema: Schema): Schema {
  const target = typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  const out: Schema = {};
  if (target.type !== undefined) out.type = target.type;
  if (target.items !== undefined) out.items = shape(target.items as Schema);
  const types = Array.isArray(target.type) ? (target.type as string[]) : [target.type];
  if (types.includes('object')) {
    const properties = target.properties as Record<string, Schema> | undefined;
    if (properties) {
      out.properties = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, shape(value)]));
      out.additionalProperties = false;
    } else {
      out.additionalProperties = true;
    }
  }
  return out;
}

function resolve(ref: string): Schema {
  const found = ref.startsWith(refPrefix) ? components[ref.slice(refPrefix.length)] : undefined;
  if (!found) throw new Error(`unresolvable schema reference ${ref}`);
  return found;
}
