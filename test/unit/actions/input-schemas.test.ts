import { describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../../src/actions/index.js';
import type { ActionDef } from '../../../src/actions/index.js';
import { queryParsedByHandler } from '../../../src/actions/action.js';
import type { ActionServices } from '../../../src/handlers/index.js';
import { checkInput, compileInputs } from '../../../src/actions/input-schemas.js';
import { loadConfig } from '../../../src/config/config.js';
import { buildOpenApi } from '../../../src/routes/openapi-document.js';
import { openApiPath } from '../../../src/routes/openapi-route-paths.js';
import type { OpenApiObject, Operation } from '../../../src/derive/openapi/types.js';
import { ApiError } from '../../../src/http/errors.js';
import { actionRoute } from '../../../src/routes/actions.js';

const services = {} as ActionServices;
const doc = buildOpenApi(
  loadConfig({ PUBLIC_URL: 'http://api.test' }),
  actions.map((action) => ({ method: action.method, url: action.path, config: actionRoute(action, services).config ?? {} })),
);

/** A `$ref` of the document resolved to the object it names. */
function resolve(value: OpenApiObject): OpenApiObject {
  const target = value.$ref;
  if (typeof target !== 'string') return value;
  const [, , kind, name] = target.split('/');
  const components = doc.components as unknown as Record<string, Record<string, OpenApiObject>>;
  const found = components[kind ?? '']?.[name ?? ''];
  if (!found) throw new Error(`unresolved ${target}`);
  return found;
}

function operationOf(action: ActionDef): Operation {
  const operation = doc.paths[openApiPath(action.path)]?.[action.method.toLowerCase()];
  if (!operation) throw new Error(`no operation for ${actionKey(action)}`);
  return operation;
}

const withBody = actions.filter((action) => action.schemas.body);
/** Actions with a query schema of their own, and those that declare none (so take no parameter). */
const withQuery = actions.flatMap((action) => (typeof action.schemas.query === 'object' ? [{ action, query: action.schemas.query }] : []));
const withoutQuery = actions.filter((action) => action.schemas.query === undefined);

function problemOf(call: () => void): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('no problem raised');
}

describe('action input schemas', () => {
  it('are declared for the resource writes, key rotation, sign-in, OAuth and availability', () => {
    const keys = withBody.map(actionKey);
    expect(keys).toEqual(
      expect.arrayContaining([
        'products.create',
        'products.update',
        'users.otp-start',
        'users.otp-verify',
        'users.totp-verify',
        'users.totp-activate',
        'users.totp-step-up',
        'users.totp-disable',
        'users.oauth-token',
        'api-clients.rotate-key',
      ]),
    );
    expect(withQuery.map(({ action }) => actionKey(action))).toEqual(expect.arrayContaining(['users.oauth-start', 'products.availability', 'webhooks.received']));
    expect(withoutQuery.map(actionKey)).toEqual(expect.arrayContaining(['products.read', 'products.create', 'products.update', 'products.delete', 'users.erase', 'users.otp-start']));
  });

  it('leave the query to the handler only for the list language, the OAuth callback and the calendar feed', () => {
    // Lists, exports, the availability search, deliveries and attempts parse (and refuse) their
    // query language themselves; the OAuth callback takes what a provider appends (RFC 6749 §4.1.2);
    // a calendar feed ignores whatever a channel appends (a cache-buster, docs/calendars.md "Export").
    const listLanguage = (action: ActionDef) => (action.openapi.parameters ?? []).some((parameter) => parameter.$ref === '#/components/parameters/where');
    for (const action of actions) {
      const parsedByHandler = action.schemas.query === queryParsedByHandler;
      expect(parsedByHandler, actionKey(action)).toBe(listLanguage(action) || ['users.oauth-callback', 'products.calendar-export'].includes(actionKey(action)));
    }
  });

  it('declare closed query schemas, so a parameter an action does not name is refused', () => {
    for (const { action, query } of withQuery) expect(query.additionalProperties, actionKey(action)).toBe(false);
  });

  it.each(withoutQuery.map((action) => [actionKey(action), action] as const))('%s: declares no query, documents none and refuses any', (_key, action) => {
    expect((operationOf(action).parameters ?? []).map(resolve).filter((parameter) => parameter.in === 'query')).toEqual([]);
    expect(problemOf(() => checkInput(action, { params: {}, query: { page: '1' }, body: undefined })).errors).toContainEqual({ field: 'page', message: 'is not a parameter of this operation' });
  });

  it('refuse each query parameter an action does not take, naming it', () => {
    const read = actions.find((action) => actionKey(action) === 'products.read');
    if (!read) throw new Error('no products.read');
    expect(problemOf(() => checkInput(read, { params: {}, query: { fields: 'name', foo: ['1', '2'] }, body: undefined })).errors).toEqual([
      { field: 'fields', message: 'is not a parameter of this operation' },
      { field: 'foo', message: 'is not a parameter of this operation' },
    ]);
    expect(() => checkInput(read, { params: {}, query: {}, body: undefined })).not.toThrow();
  });

  it('compile, once per schema object', () => {
    for (const action of actions) expect(() => compileInputs(action), actionKey(action)).not.toThrow();
  });

  it.each(withBody.map((action) => [actionKey(action), action] as const))('%s: the OpenAPI request body is the schema the executor enforces', (_key, action) => {
    const schema = operationOf(action).requestBody?.content as Record<string, { schema: OpenApiObject }> | undefined;
    const printed = schema?.['application/json']?.schema;
    expect(printed).toBeDefined();
    // The same object, not a copy: what the document prints cannot drift from what is checked.
    expect(resolve(printed ?? {})).toBe(action.schemas.body);
    expect(JSON.parse(JSON.stringify(resolve(printed ?? {})))).toEqual(action.schemas.body);
  });

  it.each(withQuery.map(({ action, query }) => [actionKey(action), action, query] as const))('%s: the OpenAPI query parameters are the properties the executor enforces', (_key, action, query) => {
    const properties = query.properties as Record<string, OpenApiObject>;
    const required = (query.required ?? []) as string[];
    const parameters = (operationOf(action).parameters ?? []).map(resolve).filter((parameter) => parameter.in === 'query');
    expect(parameters.map((parameter) => parameter.name)).toEqual(Object.keys(properties));
    for (const parameter of parameters) {
      const name = String(parameter.name);
      expect(parameter.schema, name).toBe(properties[name]);
      expect(parameter.required === true, name).toBe(required.includes(name));
    }
  });

  it("answers every bad field as the contract's problem, in the service's words", () => {
    const create = actions.find((action) => actionKey(action) === 'products.create');
    if (!create) throw new Error('no products.create');
    const problem = problemOf(() => checkInput(create, { params: {}, query: {}, body: { name: 7, total_items: 1.5, _id: 'x', colour: 'red', address: 'a', city: 'b', zip_code: 'c' } }));
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'must be a string' },
        { field: 'total_items', message: 'must be an integer' },
        { field: '_id', message: 'is set by the service and cannot be written' },
        { field: 'colour', message: 'is not a field of this resource' },
      ]),
    );
    expect(problemOf(() => checkInput(create, { params: {}, query: {}, body: [] })).errors).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    const otpStart = actions.find((action) => actionKey(action) === 'users.otp-start');
    if (!otpStart) throw new Error('no users.otp-start');
    expect(problemOf(() => checkInput(otpStart, { params: {}, query: {}, body: { tenant_id: 't-1', channel: 'fax', destination: 'x', extra: 1 } })).errors).toEqual([
      { field: 'extra', message: 'is not accepted here' },
      { field: 'channel', message: 'must be one of email, sms' },
    ]);
  });
});
