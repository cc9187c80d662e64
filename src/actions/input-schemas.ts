import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import type { Schema } from '../derive/openapi/types.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef, ActionInput } from './action.js';
import { fieldErrors } from './input-errors.js';
import type { InputPart, UnknownMembers } from './input-errors.js';
import { inputFormats } from './input-formats.js';

/**
 * One Ajv for every action's input, as Fastify uses for its route schemas: JSON Schema
 * 2020-12 (OpenAPI 3.1's dialect), every error at once, no coercion and no defaults (the
 * input is checked, never changed). Strict, so a misspelt keyword fails at start-up; the
 * `x-` annotations OpenAPI carries are declared as keywords without validation.
 */
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictTypes: false, coerceTypes: false, useDefaults: false });
ajv.addVocabulary(['x-gdpr', 'x-references', 'x-sensitive', 'x-capability-read', 'x-capability-write', 'x-immutable']);
for (const [name, format] of Object.entries(inputFormats)) ajv.addFormat(name, { type: 'string', validate: format.check });

const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const parts: readonly InputPart[] = ['params', 'query', 'body'];

/**
 * The query schema of an action that declares none: each parameter sent is refused (400
 * naming it), never silently ignored (docs/api.md: "Query parameters are never ignored").
 */
const noQuery: Schema = { type: 'object', properties: {}, additionalProperties: false };
const notAccepted: UnknownMembers = { unknown: 'is not accepted here' };
const notAParameter: UnknownMembers = { unknown: 'is not a parameter of this operation' };

/** How a part's members outside its closed schema are refused: the action's words for its body. */
function unknownMembersOf(action: ActionDef, part: InputPart): UnknownMembers {
  if (part === 'query') return notAParameter;
  return part === 'body' ? (action.schemas.unknownMembers ?? notAccepted) : notAccepted;
}

/**
 * The schema a part of an action's input is checked against. A query the action does not
 * declare is {@link noQuery} (deny by default); one its handler parses is not checked here.
 */
function schemaOf(action: ActionDef, part: InputPart): Schema | undefined {
  if (part !== 'query') return action.schemas[part];
  const query = action.schemas.query ?? noQuery;
  return query === queryParsedByHandler ? undefined : query;
}

/** Compiles an action's input schemas (once per schema object): at start-up, so a bad schema fails the boot. */
export function compileInputs(action: ActionDef): void {
  for (const part of parts) {
    const schema = schemaOf(action, part);
    if (schema) validatorOf(schema);
  }
}

/**
 * Checks one value against a schema compiled by the same Ajv, for input that can be checked
 * only inside a handler: an incoming webhook's event, whose signature over the raw body is
 * verified before its content is looked at. Throws a 400 `validation_failed` like
 * {@link checkInput}; the schema should leave unknown members open (a sender's payload).
 */
export function checkValue(schema: Schema, value: unknown, part: InputPart): void {
  const errors = errorsOf(schema, value, part, notAccepted);
  if (errors.length > 0) throw validationError(errors);
}

/** What is wrong with `value` as `part` of an input, by field; empty when it fits `schema`. */
function errorsOf(schema: object, value: unknown, part: InputPart, unknownMembers: UnknownMembers): FieldError[] {
  const validate = validatorOf(schema);
  return validate(value) ? [] : fieldErrors(validate.errors ?? [], part, unknownMembers);
}

/**
 * Checks a call against the action's declared `params`, `query` and `body` schemas; the
 * executor runs this for HTTP and the CLI alike. Throws a 400 `validation_failed` naming
 * every bad field.
 */
export function checkInput(action: ActionDef, input: Pick<ActionInput, 'params' | 'query' | 'body'>): void {
  const errors: FieldError[] = [];
  for (const part of parts) {
    const schema = schemaOf(action, part);
    if (schema) errors.push(...errorsOf(schema, input[part], part, unknownMembersOf(action, part)));
  }
  if (errors.length > 0) throw validationError(errors);
}
