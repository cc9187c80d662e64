import type { ErrorObject } from 'ajv';
import type { FieldError } from '../http/errors.js';
import { inputFormats } from './input-formats.js';

/** Which part of a call a schema checks; a problem of the whole body is named `body`. */
export type InputPart = 'body' | 'query' | 'params';

/** How members a closed schema leaves out are refused (the messages the hand validators gave). */
export interface UnknownMembers {
  /** For any member the schema does not know. */
  readonly unknown: string;
  /** For members left out on purpose (server-owned, create-only), by name. */
  readonly refused?: Readonly<Record<string, string>>;
}

const typeMessages: Readonly<Record<string, string>> = {
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
  object: 'must be a JSON object',
  array: 'must be an array',
};

function decode(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** The top-level member an error is about: the field name the clients know. */
function fieldOf(error: ErrorObject, part: InputPart): string {
  const top = error.instancePath.split('/')[1];
  if (top !== undefined) return decode(top);
  if (error.keyword === 'required') return String(error.params.missingProperty);
  if (error.keyword === 'additionalProperties') return String(error.params.additionalProperty);
  return part;
}

/** An entry of a list (`/events/0`) rather than a top-level member. */
function isEntry(error: ErrorObject): boolean {
  return error.instancePath.split('/').length > 2;
}

function typeMessage(error: ErrorObject): string {
  if (error.data === null && !isEntry(error)) return 'must not be null';
  if (error.parentSchema?.format === 'date-time') return inputFormats['date-time']?.message ?? 'must be a string';
  const expected =
    String(error.params.type)
      .split(',')
      .find((type) => type !== 'null') ?? 'string';
  const message = expected === 'integer' && typeof error.data !== 'number' ? 'must be a number' : (typeMessages[expected] ?? `must be of type ${expected}`);
  return isEntry(error) ? `entries ${message}` : message;
}

function formatMessage(error: ErrorObject, format: string): string {
  const message = inputFormats[format]?.message ?? `must be a ${format}`;
  return isEntry(error) && typeof error.data === 'string' ? `entry "${error.data.slice(0, 100)}" ${message}` : message;
}

/** One Ajv error in the words the service's problems use. */
function messageOf(error: ErrorObject, part: InputPart, members: UnknownMembers): string {
  const { params } = error;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const refused = members.refused && Object.hasOwn(members.refused, name) ? members.refused[name] : undefined;
      return refused ?? members.unknown;
    }
    case 'type':
      if (error.instancePath === '' && part === 'body') return 'must be a JSON object';
      // A query string holds only strings; an array there is a parameter given twice (`?from=…&from=…`).
      if (part === 'query' && Array.isArray(error.data)) return 'given more than once';
      return typeMessage(error);
    case 'format':
      return formatMessage(error, String(params.format));
    case 'pattern': {
      const format = error.parentSchema?.format;
      return typeof format === 'string' ? formatMessage(error, format) : `must match the pattern ${String(params.pattern)}`;
    }
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).filter((value) => value !== null).join(', ')}`;
    case 'const':
      return `must be ${String(params.allowedValue)}`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} entries`;
    case 'minProperties':
      return part === 'body' ? 'names no field to change' : `must have at least ${String(params.limit)} members`;
    default:
      return 'is not valid';
  }
}

/**
 * Ajv's errors (`allErrors`, `verbose`) as the field-level `errors` of a 400
 * `validation_failed`: one per top-level field (the first Ajv reports), named as clients
 * send it, in the service's own words.
 */
export function fieldErrors(errors: readonly ErrorObject[], part: InputPart, members: UnknownMembers): FieldError[] {
  const out = new Map<string, string>();
  for (const error of errors) {
    const field = fieldOf(error, part);
    if (!out.has(field)) out.set(field, messageOf(error, part, members));
  }
  return [...out].map(([field, message]) => ({ field, message }));
}
