import type { FieldDef, ResourceDef } from '../registry/types.js';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { normaliseTimestamp } from '../core/timestamps.js';

export type Mode = 'create' | 'update';

// In `u` mode a surrogate pair is one code point, so this matches only lone surrogates.
const loneSurrogate = /[\uD800-\uDFFF]/u;

/**
 * Why a string cannot be stored alike on both databases, if it cannot: PostgreSQL text
 * holds no NUL, and jsonb (the audit trail) refuses lone surrogates; either would be a 500.
 * A pattern on every string of the schemas could say it, but would clutter every string
 * of the OpenAPI document with the same noise.
 */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (loneSurrogate.test(text)) return 'must be well-formed Unicode (no lone surrogates)';
  return undefined;
}

/** The stored form of a value the body schema accepted, or why it cannot be stored. */
function normalise(field: FieldDef, value: unknown): { value?: unknown; error?: string } {
  if (typeof value === 'string') {
    const text = textProblem(value);
    if (text) return { error: text };
    return field.type === 'timestamp' ? { value: normaliseTimestamp(value) } : { value };
  }
  // JSON Schema's `integer` is any whole number; the databases' is 64-bit, JavaScript's exact up to 2^53.
  if (field.type === 'integer' && typeof value === 'number' && !Number.isSafeInteger(value)) return { error: 'must be an integer' };
  if (Array.isArray(value)) {
    const problem = value.map((item) => (typeof item === 'string' ? textProblem(item) : undefined)).find((text) => text !== undefined);
    return problem ? { error: `entries ${problem}` } : { value: [...new Set(value)] };
  }
  return { value };
}

/**
 * A create or update body after its schema (`ResourcesCreate`/`Update`, enforced by the
 * action executor): what JSON Schema cannot say — strings both databases can store,
 * integers JavaScript holds exactly — and the stored form — timestamps in UTC with
 * milliseconds, lists without repeats, and on create the defaults (server-owned fields'
 * included). Throws a 400 listing every problem.
 */
export function normaliseBody(resource: ResourceDef, body: unknown, mode: Mode): Record<string, unknown> {
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const field = Object.hasOwn(resource.fields, key) ? resource.fields[key] : undefined;
    // The schema lets no such member through; reaching here, the body was never checked.
    if (!field || field.serverOwned) throw new Error(`${resource.name} body not checked against its ${mode} schema: ${key}`);
    const checked = normalise(field, value);
    if (checked.error) errors.push({ field: key, message: checked.error });
    else values[key] = checked.value;
  }
  if (errors.length > 0) throw validationError(errors);
  if (mode === 'create') {
    for (const name of resource.fieldNames) {
      const field = resource.fields[name];
      if (!field || name in values || field.default === undefined) continue;
      values[name] = Array.isArray(field.default) ? [...field.default] : field.default;
    }
  }
  return values;
}
