import type { OpenApiObject, Schema } from './types.js';

/**
 * The OpenAPI query parameters of an action's `query` schema (an object schema): one per
 * property, whose `schema` is that very property object, so the document prints what the
 * executor enforces.
 */
export function queryParameters(query: Schema, descriptions: Readonly<Record<string, string>> = {}): OpenApiObject[] {
  const properties = (query.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(query.required) ? (query.required as unknown[]) : [];
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: required.includes(name), ...(descriptions[name] ? { description: descriptions[name] } : {}), schema }));
}
