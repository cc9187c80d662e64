/**
 * The small part of the OpenAPI 3.1 object model the generator builds. Schemas are JSON
 * Schema 2020-12 (OpenAPI 3.1's dialect) and stay open records: the generator writes
 * them, the validator in the tests checks them.
 */

/** Any OpenAPI object or JSON Schema, as plain JSON. */
export type OpenApiObject = { [key: string]: unknown };

/** A JSON Schema. */
export type Schema = OpenApiObject;

/** An Operation Object. */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: OpenApiObject[];
  requestBody?: OpenApiObject;
  responses: Record<string, OpenApiObject>;
  security?: Record<string, string[]>[];
  deprecated?: boolean;
  /** The capability (OAuth scope) the route declares. */
  'x-capability'?: string;
  /** The operationId of the operation this one repeats at another path form (a trailing slash). */
  'x-alias-of'?: string;
}

/** A Path Item Object: operations by lower-case method. */
export type PathItem = Record<string, Operation>;

/** Detailed operations keyed by `METHOD /openapi/{path}`. */
export type KnownOperations = ReadonlyMap<string, Operation>;

/** The generated document. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: OpenApiObject;
  readonly servers: readonly OpenApiObject[];
  readonly tags: readonly OpenApiObject[];
  readonly security: readonly Record<string, string[]>[];
  readonly paths: Record<string, PathItem>;
  readonly components: {
    readonly schemas: Record<string, Schema>;
    readonly parameters: Record<string, OpenApiObject>;
    readonly headers: Record<string, OpenApiObject>;
    readonly responses: Record<string, OpenApiObject>;
    readonly securitySchemes: Record<string, OpenApiObject>;
  };
}

/** A `$ref` to a component. */
export function ref(kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string): OpenApiObject {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The key of an operation in {@link KnownOperations}. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
