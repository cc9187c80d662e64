import type { FieldDef, ResourceDef } from '../registry/types.js';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import { isCapability } from '../derive/capabilities.js';
import { isValidCidr } from '../security/ip-allowlist.js';
import { reservedColumns } from '../registry/define-resource.js';
import { normaliseTimestamp } from './timestamps.js';
import { isTimeZone } from '../lib/time-zone.js';

export type Mode = 'create' | 'update';

const serverOwnedMessage = 'is set by the service and cannot be written';

const formats: Record<NonNullable<FieldDef['format']>, (value: string) => string | undefined> = {
  email: (v) => (/^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/.test(v) ? undefined : 'must be an e-mail address'),
  uri: (v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'must be an http(s) URL';
    } catch {
      return 'must be an absolute URL';
    }
  },
  currency: (v) => (/^[A-Z]{3}$/.test(v) ? undefined : 'must be an ISO 4217 code (three capital letters)'),
  // The same parser the allowlist uses at request time: what is stored must load.
  cidr: (v) => (isValidCidr(v) ? undefined : 'must be an IPv4 or IPv6 address or CIDR (no zone id, no leading zeros)'),
  capability: (v) => (isCapability(v) ? undefined : 'is not a known capability'),
  pem: (v) => (v.includes('-----BEGIN') ? undefined : 'must be a PEM document'),
  phone: (v) => (/^\+[1-9]\d{6,14}$/.test(v) ? undefined : 'must be an E.164 phone number (+4930123456)'),
  date: (v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : 'must be a date (YYYY-MM-DD)'),
  'time-zone': (v) => (isTimeZone(v) ? undefined : 'must be an IANA time zone name (Europe/Berlin, UTC)'),
};

// In `u` mode a surrogate pair is one code point, so this matches only lone surrogates.
const loneSurrogate = /[\uD800-\uDFFF]/u;

/**
 * Why a string cannot be stored alike on both databases, if it cannot: PostgreSQL text
 * holds no NUL, and jsonb (the audit trail) refuses lone surrogates; either would be a 500.
 */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (loneSurrogate.test(text)) return 'must be well-formed Unicode (no lone surrogates)';
  return undefined;
}

/** Checks one value against its field definition; returns the normalised value or an error message. */
function checkValue(field: FieldDef, value: unknown): { value?: unknown; error?: string } {
  if (value === null) return field.nullable ? { value: null } : { error: 'must not be null' };
  switch (field.type) {
    case 'string':
    case 'reference': {
      if (typeof value !== 'string') return { error: 'must be a string' };
      const text = textProblem(value);
      if (text) return { error: text };
      if (value.length === 0 && field.type === 'reference') return { error: 'must not be empty' };
      if (field.maxLength !== undefined && value.length > field.maxLength) return { error: `must be at most ${field.maxLength} characters` };
      if (field.enum && !field.enum.includes(value)) return { error: `must be one of ${field.enum.join(', ')}` };
      const problem = field.format ? formats[field.format](value) : undefined;
      return problem ? { error: problem } : { value };
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { error: 'must be a number' };
      if (field.type === 'integer' && !Number.isSafeInteger(value)) return { error: 'must be an integer' };
      if (field.minimum !== undefined && value < field.minimum) return { error: `must be at least ${field.minimum}` };
      if (field.maximum !== undefined && value > field.maximum) return { error: `must be at most ${field.maximum}` };
      return { value };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
    case 'timestamp': {
      const normalised = typeof value === 'string' ? normaliseTimestamp(value) : undefined;
      return normalised ? { value: normalised } : { error: 'must be an ISO 8601 timestamp (2026-01-31T12:00:00Z)' };
    }
    case 'string_list': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return { error: 'must be an array of strings' };
      const itemProblem = (value as string[]).map(textProblem).find((problem) => problem !== undefined);
      if (itemProblem) return { error: `entries ${itemProblem}` };
      if (field.maxItems !== undefined && value.length > field.maxItems) return { error: `must have at most ${field.maxItems} entries` };
      const check = field.format ? formats[field.format] : undefined;
      const bad = check ? (value as string[]).find((item) => check(item) !== undefined) : undefined;
      if (bad !== undefined && check) return { error: `entry "${bad.slice(0, 100)}" ${check(bad)}` };
      return { value: [...new Set(value as string[])] };
    }
    case 'object':
      return { error: 'cannot be set' };
  }
}

/**
 * Strictly validates a create or update body against the registry: unknown, server-owned
 * and (on update) immutable fields are refused, types and formats checked, defaults applied
 * on create. Returns the normalised values; throws a 400 listing every problem.
 */
export function validateBody(resource: ResourceDef, body: unknown, mode: Mode): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
  }
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    const field = Object.hasOwn(resource.fields, key) ? resource.fields[key] : undefined;
    const value = (body as Record<string, unknown>)[key];
    // Bookkeeping columns (`etag`, `deleted_at`) are no fields, but are the service's all the same.
    if (!field && reservedColumns.includes(key)) errors.push({ field: key, message: serverOwnedMessage });
    else if (!field) errors.push({ field: key, message: 'is not a field of this resource' });
    else if (field.serverOwned) errors.push({ field: key, message: serverOwnedMessage });
    else if (mode === 'update' && (field.immutable || field.writeOnly)) errors.push({ field: key, message: 'cannot be changed after creation' });
    else {
      const checked = checkValue(field, value);
      if (checked.error) errors.push({ field: key, message: checked.error });
      else values[key] = checked.value;
    }
  }
  if (mode === 'create') {
    for (const name of resource.fieldNames) {
      const field = resource.fields[name];
      if (!field || name in values) continue;
      if (errors.some((e) => e.field === name)) continue;
      // Server-owned fields are never taken from the body, but their defaults still apply.
      if (field.serverOwned) {
        if (field.default !== undefined) values[name] = field.default;
        continue;
      }
      if (field.required) errors.push({ field: name, message: 'is required' });
      else if (field.default !== undefined) values[name] = Array.isArray(field.default) ? [...field.default] : field.default;
    }
  } else if (errors.length === 0 && Object.keys(values).length === 0) {
    errors.push({ field: 'body', message: 'names no field to change' });
  }
  if (errors.length > 0) throw validationError(errors);
  return values;
}
