import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiObject, Operation } from '../../../src/derive/openapi/types.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { TestOidcProvider } from '../../support/oidc-provider.js';
import { minimalBody, patchBody, productBody } from '../../support/resource-bodies.js';
import { signInByEmail } from '../../support/user-sign-in.js';
import { ensureSbom } from '../security-endpoints/ensure-sbom.js';
import { fetchDocument } from './openapi-support.js';

/*
 * Every operation of the OpenAPI document, fed bad input: path parameters that are real
 * ids, unknown ids or garbage; query strings with wrong-typed, repeated, bracketed and
 * unknown parameters and bad percent-encoding; bodies that are random JSON, valid bodies
 * with a field or two changed, objects with wrong-typed, extra or null fields, deep
 * nesting, other media types, non-JSON text and invalid UTF-8; now and then the
 * documented headers (`Idempotency-Key`, `If-Match`, `X-Tenant-Id`, `DPoP`) and a bad
 * `Authorization`. The API client holds every capability the document declares (its
 * `x-capability` values and OAuth scopes), the TOTP operations get an end user's token,
 * and a provider is configured for the OAuth login, so requests get past authorisation
 * to input validation and the handlers.
 *
 * Every answer must be below 500 and carry no stack frame; every 4xx must be an RFC 9457
 * problem (`type`, `title`, `status` equal to the HTTP status, `detail`, `instance`,
 * `code`: docs/api.md), except at the token endpoint, whose errors are RFC 6749 JSON
 * with `Cache-Control: no-store` (docs/authentication.md), and must not leak internals or
 * SQL. Redirects (the OAuth start and callback) and pages (the console, `/docs`,
 * `/status`) are held to the same rules: their refusals are problems too. A write
 * refused with a 4xx must leave the database as it was: rows, soft deletions and latest
 * `updated_at` of every resource table, the trail's data entries and the service tables
 * a write fills.
 *
 * Nothing is skipped: the document publishes no operation that shuts the service down or
 * rotates its signing keys (those are CLI commands), and none needs a browser. Deletions
 * and erasure run last, so the other operations still find the records they name. Each
 * operation has its own fixed seed: a failure names it and reproduces alone. A deeper
 * search by hand: `BAD_INPUT_RUNS=200 BAD_INPUT_SEED=x npx vitest run <this file>` (more
 * runs per operation, other seeds).
 */

/** Runs per operation: a read costs a request, a write also a count of the database. */
const runs = { read: Number(process.env.BAD_INPUT_RUNS ?? 50), write: Number(process.env.BAD_INPUT_RUNS ?? 25) };
/** Shrinking a failure costs requests: enough to reach a small repro, not to stall the run. */
const shrinkBudget = 60;
/** The application's redirect URI registered for the OAuth login. */
const appRedirect = 'https://app.example/signed-in';
/** The one operation that answers RFC 6749 errors instead of problems (docs/authentication.md). */
const tokenEndpoint = 'POST /v1/auth/token';

/** Stack frames, which no answer may carry. */
const stackLeaks: readonly RegExp[] = [/ {4}at /, /node:internal/, /(?:\\n|\n)\s*at \S/, /\(\S+\.[cm]?[jt]s:\d+:\d+\)/];
/** What an error must not carry besides: internals, checkout paths, SQL (a 2xx may name SQLite: the security posture does). */
const errorLeaks: readonly RegExp[] = [...stackLeaks, /node_modules/, /\/work\//, /\bsrc\//, /\bSELECT\s/, /sqlite/i, /syntax error/i];

/** Strings that go wrong in parsers, validators, SQL and file systems. */
const nastyText: readonly string[] = [
  '',
  ' ',
  '../../etc/passwd',
  '..\\..\\windows',
  '%00',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m\u007f',
  '\r\n\r\n',
  '\t',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '-0',
  '1e309',
  '9'.repeat(400),
  '__proto__',
  'constructor',
  'prototype',
  '{"$where":"1"}',
  "' OR 1=1 --",
  '"; DROP TABLE products; --',
  '<script>alert(1)</script>',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '\ufb00\u0130\u00df',
  '😀'.repeat(50),
  '\ud800',
  'x\udfffy',
  'a'.repeat(5000),
  '${jndi:ldap://x}',
  '*',
  '.*',
  '(a+)+$',
  '[',
  '\\',
  '2026-02-30T25:61:00Z',
  '0000-00-00',
  '+99999-01-01T00:00:00Z',
];

/** Path segments and query parts sent as they are (already percent-encoded or URL-safe). */
const rawParts: readonly string[] = [
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2Fetc',
  '%2F',
  '%5C',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '%0A',
  '%0D%0A',
  '%7F',
  '%20',
  '~',
  '*',
  ';x=1',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  'null',
  '__proto__',
  'a'.repeat(300),
  'a'.repeat(5000),
];

/** Escapes a database may refuse to store or compare: NUL, an escaped lone surrogate, bytes that are not UTF-8. */
const encodingHazards: readonly string[] = ['%00', 'a%00b', '%ED%A0%80', '%FF', '%C0%80'];

/** Query parameter names a naive parser would turn into objects or prototypes. */
const rawQueryNames: readonly string[] = ['a[0][b]', 'where[$ne]', 'page[]', 'fields[]', 'sort[0]', '__proto__', 'constructor[prototype][x]', '%E0%A4%A', '%00', 'q', '', 'x'.repeat(300)];

/** Numbers in the places where integers, pages and sizes go. */
const numberTexts: readonly string[] = ['-1', '0', '1', '100', '101', '1000001', '-99999999999', '1e999', '99999999999999999999999', '-0', '0x10', '1.5', 'Infinity', 'true', ''];

/** Media types a JSON body is refused with, or must be read correctly with. */
const contentTypes: readonly string[] = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset="UTF-8"',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/json;;;',
  'application/problem+json',
  '*/*',
];

/** The service tables that record what a write did, besides the resource tables. */
const serviceTables: readonly string[] = [
  'api_client_keys',
  'outbox_events',
  'webhook_secrets',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'webhook_received',
  'user_totp',
  'mfa_challenges',
  'otp_challenges',
  'oauth_states',
  'oauth_login_codes',
  'product_booking_spans',
];

/** A string as one percent-encoded URL component (UTF-8; a lone surrogate becomes U+FFFD). */
function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** FNV-1a: a fixed seed per operation, so a failure reproduces on its own. */
function seedOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash | 0;
}

/** One request of the fuzz, as sent. */
interface Sent {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload?: string | Buffer;
}

/** A body as the fuzz sends it: bytes and the media type they are labelled with. */
interface Body {
  readonly payload?: string | Buffer;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

type Auth = 'token' | 'none' | 'garbage' | 'basic' | 'dpop-unbound';
type IfMatch = 'none' | 'current' | 'garbage' | 'star' | 'weak';

interface Input {
  readonly segments: readonly string[];
  readonly query: string;
  readonly body: Body;
  readonly auth: Auth;
  readonly ifMatch: IfMatch;
  readonly headers: Record<string, string>;
}

interface FuzzedOperation {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
  /** `client`: an API client token; `user`: an end user's token; `none`: public. */
  readonly caller: 'client' | 'user' | 'none';
  readonly pathParams: readonly string[];
  readonly queryParams: readonly OpenApiObject[];
  /** Request headers the document declares, lower case. */
  readonly headerParams: readonly string[];
  readonly bodyType?: string;
  readonly bodySchema?: OpenApiObject;
  readonly write: boolean;
}

/** Records the fuzz can name, created before it starts. */
interface Fixtures {
  readonly ids: Partial<Record<ResourceName, string[]>>;
  readonly allIds: readonly string[];
  readonly incomingWebhook: string;
  readonly outgoingWebhook: string;
  readonly deliveryId: string;
  readonly emails: readonly string[];
  readonly tenantIds: readonly string[];
  readonly capabilities: readonly string[];
  readonly clientId: string;
  readonly publicPem: string;
  readonly challengeId: string;
  readonly oauthState: string;
  readonly issuer: string;
  readonly asset: string;
}

/** The component a `$ref` names, followed until it is no reference. */
function resolve(doc: OpenApiDocument, object: OpenApiObject): OpenApiObject {
  let current = object;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const [, , kind, name] = current.$ref.split('/');
    const components = doc.components as unknown as Record<string, Record<string, OpenApiObject>>;
    current = components[kind ?? '']?.[name ?? ''] ?? {};
  }
  return current;
}

function operationsOf(doc: OpenApiDocument): FuzzedOperation[] {
  const list: FuzzedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || !('responses' in operation)) continue;
      const parameters = (operation.parameters ?? []).map((p) => resolve(doc, p));
      const content = operation.requestBody ? (resolve(doc, operation.requestBody).content as Record<string, OpenApiObject> | undefined) : undefined;
      const bodyType = content ? Object.keys(content)[0] : undefined;
      const schema = bodyType ? content?.[bodyType]?.schema : undefined;
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
      const caller = operation['x-capability'] ? 'client' : schemes.includes('bearer') ? 'user' : 'none';
      list.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operation,
        caller,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        queryParams: parameters.filter((p) => p.in === 'query'),
        headerParams: parameters.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase()),
        ...(bodyType ? { bodyType } : {}),
        ...(schema && typeof schema === 'object' ? { bodySchema: resolve(doc, schema as OpenApiObject) } : {}),
        write: ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()),
      });
    }
  }
  // Deletions and erasure last: the other operations still find the records they name.
  const rank = (op: FuzzedOperation) => (op.method === 'DELETE' ? 2 : op.path.endsWith('/erase') ? 1 : 0);
  return list.sort((a, b) => rank(a) - rank(b));
}

/** The resource a `/v1/{resource}/…` path belongs to. */
function resourceOf(path: string): ResourceName | undefined {
  const name = path.split('/')[2];
  return resources.find((r) => r.name === name)?.name;
}

const weighted = <T>(...entries: [number, fc.Arbitrary<T>][]): fc.Arbitrary<T> => fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));

/** Any text: nasty constants, random strings, any code points. */
const text: fc.Arbitrary<string> = weighted<string>(
  [3, fc.constantFrom(...nastyText)],
  [2, fc.string({ maxLength: 30 })],
  [1, fc.string({ unit: 'binary', maxLength: 20 })],
  [1, fc.string({ unit: 'grapheme', maxLength: 10 })],
  [1, fc.integer().map(String)],
  [1, fc.double().map(String)],
);

/** A JSON value of the wrong kind for almost any field. */
const garbage: fc.Arbitrary<unknown> = weighted<unknown>(
  [3, fc.jsonValue({ maxDepth: 2 })],
  [2, text],
  [1, fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 0.1, -1, 0, true, false, null, [], {}, [null], { $gt: '' })],
);

/** A value the schema accepts or nearly does, with real ids where a field names a record. */
function plausible(schema: OpenApiObject | undefined, name: string, fixtures: Fixtures, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 3) return garbage;
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as OpenApiObject[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => plausible(s, name, fixtures, depth + 1)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type ?? 'string')];
  return fc.oneof(...types.map((type) => plausibleOf(type, schema, name, fixtures, depth)));
}

function plausibleOf(type: string, schema: OpenApiObject, name: string, fixtures: Fixtures, depth: number): fc.Arbitrary<unknown> {
  const references = schema['x-references'] as ResourceName | undefined;
  const ids = references ? (fixtures.ids[references] ?? []) : [];
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = Number(schema.minimum ?? -1_000_000);
      const max = Number(schema.maximum ?? 1_000_000);
      // Inside the range, its edges, and the edges of 32-bit columns and of exact doubles.
      return weighted<number>([3, fc.integer({ min, max })], [1, fc.constantFrom(min - 1, max + 1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53) + 1)]);
    }
    case 'number':
      return fc.double({ min: Number(schema.minimum ?? -1e9), max: Number(schema.maximum ?? 1e9), noNaN: true });
    case 'array':
      return fc.array(plausible(schema.items as OpenApiObject | undefined, name, fixtures, depth + 1), { maxLength: 3 });
    case 'object':
      return objectOf(schema, fixtures, depth + 1);
    default:
      break;
  }
  if (ids.length > 0) return fc.constantFrom(...ids);
  if (name === 'tenant_id') return fc.constantFrom(...fixtures.tenantIds);
  if (name === 'record_id') return fc.constantFrom(...fixtures.allIds);
  if (name === 'resource') return fc.constantFrom(...resources.map((r) => r.name));
  if (name === 'challenge_id') return fc.constant(fixtures.challengeId);
  if (name === 'destination') return fc.constantFrom(...fixtures.emails, '+4917012345678');
  if (name === 'code') return fc.stringMatching(/^\d{6}$/);
  if (name === 'redirect_uri') return fc.constant(appRedirect);
  if (name === 'state') return fc.constantFrom(fixtures.oauthState, 'app-state');
  if (name === 'iss') return fc.constant(fixtures.issuer);
  if (name === 'client_id') return fc.constant(fixtures.clientId);
  if (name === 'scope') return fc.subarray([...fixtures.capabilities], { maxLength: 3 }).map((caps) => caps.join(' '));
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date-or-date-time':
      return fc
        .tuple(fc.date({ min: new Date('2029-01-01T00:00:00Z'), max: new Date('2031-01-01T00:00:00Z'), noInvalidDate: true }), fc.boolean())
        .map(([d, day]) => (day ? d.toISOString().slice(0, 10) : d.toISOString()));
    case 'date':
      return fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.constantFrom('fuzz@example.com', 'FUZZ@EXAMPLE.COM', 'a@b', 'not-an-address');
    case 'uri':
      return fc.constantFrom('https://hooks.example.com/fuzz', 'http://127.0.0.1/', 'javascript:alert(1)', 'https://[::1]/', 'https://user:pass@hooks.example.com/');
    case 'pem':
      return fc.constantFrom(fixtures.publicPem, '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n');
    case 'cidr':
      return fc.constantFrom('10.0.0.0/8', '::1/128', '192.0.2.1', '300.1.1.1/33', 'fe80::/10');
    case 'phone':
      return fc.constantFrom('+4917012345678', '+1', '0170');
    case 'capability':
      return fc.constantFrom(...fixtures.capabilities, 'nonsense:cap');
    default:
      break;
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({ maxLength: Number(schema.maxLength ?? 40) });
}

/** An object of the schema's properties, each plausible or (less often) of the wrong type. */
function objectOf(schema: OpenApiObject, fixtures: Fixtures, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, OpenApiObject>;
  const fields = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, weighted<unknown>([8, plausible(s, name, fixtures, depth)], [1, garbage])]));
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return fc.oneof(fc.record(fields, { requiredKeys: required.filter((name) => name in fields) }), fc.record(fields, { requiredKeys: [] }));
}

/** Top-level field names a body schema knows (including those of its alternatives). */
function fieldNames(schema: OpenApiObject | undefined): string[] {
  if (!schema) return ['name'];
  const alternatives = ((schema.anyOf ?? schema.oneOf) as OpenApiObject[] | undefined) ?? [];
  const names = [schema, ...alternatives].flatMap((s) => Object.keys((s.properties ?? {}) as object));
  return names.length > 0 ? [...new Set(names)] : ['name'];
}

const json = (value: unknown): Body => ({ payload: JSON.stringify(value) ?? 'null', contentType: 'application/json' });

/** Bodies for an operation that takes JSON (or none). */
function jsonBodies(op: FuzzedOperation, fixtures: Fixtures): fc.Arbitrary<Body> {
  const schema = op.bodySchema;
  const names = fieldNames(schema);
  const field = fc.constantFrom(...names);
  const shaped = schema ? plausible(schema, 'body', fixtures) : fc.constant({});
  const literal = fc.tuple(field, fc.constantFrom(...nastyText)).chain(([name, value]) =>
    fc.constantFrom<Body>(
      { payload: `{"${name}": 1e400}`, contentType: 'application/json' },
      { payload: `{"${name}": 123456789012345678901234567890}`, contentType: 'application/json' },
      { payload: `{"${name}": -0.0e-0}`, contentType: 'application/json' },
      { payload: `{"${name}": "\\u0000"}`, contentType: 'application/json' },
      { payload: `{"${name}": "\\ud800"}`, contentType: 'application/json' },
      { payload: `{"${name}": "a", "${name}": "b"}`, contentType: 'application/json' },
      { payload: `{"__proto__": {"${name}": 1}}`, contentType: 'application/json' },
      { payload: `{"constructor": {"prototype": {"${name}": 1}}}`, contentType: 'application/json' },
      // Truncated: the closing brace is missing.
      { payload: `{"${name}": ${JSON.stringify(value)}`, contentType: 'application/json' },
      { payload: Buffer.concat([Buffer.from(`{"${name}": "`), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]), contentType: 'application/json' },
      { payload: Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from(`{"${name}": 1}`)]), contentType: 'application/json' },
      { payload: JSON.stringify({ [name]: 'x' }), contentType: 'application/json', headers: { 'content-encoding': 'gzip' } },
      { payload: '', contentType: 'application/json' },
      { payload: ' ', contentType: 'application/json' },
      {},
    ),
  );
  const nested = fc.tuple(fc.constantFrom(100, 1000, 10_000), fc.boolean(), field).map(([depth, inArray, name]): Body => {
    const inner = inArray ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return { payload: `{"${name}": ${inner}}`, contentType: 'application/json' };
  });
  // A valid body of the resource with one or two fields changed: gets past validation often enough to reach the handlers.
  const base = validBody(op, fixtures);
  const properties = (schema?.properties ?? {}) as Record<string, OpenApiObject>;
  const tweaked =
    base && Object.keys(properties).length > 0
      ? fc
          .subarray(Object.keys(properties), { maxLength: 2 })
          .chain((picked) => fc.tuple(...picked.map((name) => weighted<unknown>([3, plausible(properties[name], name, fixtures)], [1, garbage]).map((value) => [name, value] as const))))
          .map((changes) => json({ ...base, ...Object.fromEntries(changes) }))
      : shaped.map(json);
  const anyBody = weighted<Body>(
    [4, tweaked],
    [3, shaped.map(json)],
    [1, fc.tuple(shaped, fc.dictionary(text, garbage, { minKeys: 1, maxKeys: 3 })).map(([value, extra]) => json(typeof value === 'object' && value !== null ? { ...value, ...extra } : extra))],
    [1, fc.constant(json(Object.fromEntries(names.map((name) => [name, null]))))],
    [2, fc.jsonValue().map(json)],
    [2, nested],
    [1, fc.tuple(shaped, fc.constantFrom(...contentTypes)).map(([value, contentType]) => ({ payload: JSON.stringify(value) ?? '', contentType }))],
    [1, text.map((payload) => ({ payload, contentType: 'application/json' }))],
    [2, literal],
  );
  // An operation without a body mostly gets none: that is where its other checks run.
  return op.bodyType ? anyBody : weighted<Body>([4, fc.constant({})], [1, anyBody]);
}

/** The valid create or update body of a resource operation (test/support/resource-bodies.ts). */
function validBody(op: FuzzedOperation, fixtures: Fixtures): Record<string, unknown> | undefined {
  const resource = resourceOf(op.path);
  if (!resource || resource === 'audit-logs') return undefined;
  if (op.method === 'POST' && op.path === `/v1/${resource}`) {
    return resource === 'users' ? { email: 'created@example.com' } : minimalBody(resource, { productId: fixtures.ids.products?.[0] ?? '', userId: fixtures.ids.users?.[0] ?? '' });
  }
  if (op.method === 'PATCH' && op.path === `/v1/${resource}/{id}`) return patchBody(resource);
  return undefined;
}

/** Form bodies for the token endpoint: its fields with garbage, repeats, bad encoding, other types. */
function formBodies(fixtures: Fixtures): fc.Arbitrary<Body> {
  const names = ['grant_type', 'client_id', 'client_assertion_type', 'client_assertion', 'scope'];
  const assertion = fc.constantFrom('a.b.c', 'eyJhbGciOiJub25lIn0.e30.', 'eyJhbGciOiJFUzI1NiIsImtpZCI6IngifQ.eyJpc3MiOiJ4In0.AAAA', '', '.', '...');
  const value = (name: string): fc.Arbitrary<string> => {
    switch (name) {
      case 'grant_type':
        return fc.constantFrom('client_credentials', 'password', 'authorization_code', 'refresh_token');
      case 'client_id':
        return fc.constantFrom(fixtures.clientId, 'unknown-client');
      case 'client_assertion_type':
        return fc.constant('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      case 'client_assertion':
        return assertion;
      default:
        return fc.subarray([...fixtures.capabilities], { maxLength: 3 }).map((caps) => caps.join(' '));
    }
  };
  const pair = weighted<string>(
    [4, fc.constantFrom(...names).chain((name) => weighted<string>([3, value(name).map(encode)], [1, text.map(encode)], [1, fc.constantFrom(...rawParts)]).map((v) => `${name}=${v}`))],
    [1, fc.tuple(text, text).map(([name, v]) => `${encode(name)}=${encode(v)}`)],
    [1, fc.constantFrom(...rawQueryNames, ...rawParts)],
  );
  const complete = fc.tuple(...names.map((name) => value(name))).map((values) => names.map((name, i) => `${name}=${encode(values[i] ?? '')}`));
  const form = fc.tuple(weighted<string[]>([1, complete], [1, fc.constant([])]), fc.array(pair, { maxLength: 6 })).map(([base, extra]) => [...base, ...extra].join('&'));
  return weighted<Body>(
    [6, form.map((payload) => ({ payload, contentType: 'application/x-www-form-urlencoded' }))],
    [1, fc.tuple(form, fc.constantFrom(...contentTypes, 'application/x-www-form-urlencoded; charset=latin1')).map(([payload, contentType]) => ({ payload, contentType }))],
    [1, fc.jsonValue().map(json)],
    [1, form.map((payload) => ({ payload, contentType: 'application/x-www-form-urlencoded', headers: { 'content-encoding': 'gzip' } }))],
    [1, fc.constant({ payload: Buffer.from('grant_type=\xff\xfe'.split('').map((c) => c.charCodeAt(0))), contentType: 'application/x-www-form-urlencoded' })],
    [1, fc.constant({})],
  );
}

/** A Mongo-style filter with operators, field names and junk mixed. */
function whereFilters(fields: readonly string[]): fc.Arbitrary<unknown> {
  const operators = ['$and', '$or', '$not', '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex', '$options', '$where', '$expr', '$function', '__proto__'];
  const key = fc.constantFrom(...operators, ...(fields.length > 0 ? fields : ['name']));
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 1 }),
      fc.dictionary(key, tie('node'), { maxKeys: 3 }),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.constantFrom('(a+)+$', '[', '\\', '.*', '2026-01-01T00:00:00Z'),
    ),
  }));
  return node;
}

/**
 * Query strings. Clean ones hold some of the operation's own parameters with plausible
 * values, so the request reaches the handler; fuzzed ones mix in wrong-typed values,
 * unknown, repeated and bracketed names and bad percent-encoding.
 */
function queries(op: FuzzedOperation, fixtures: Fixtures): fc.Arbitrary<string> {
  const known = op.queryParams.map((p) => String(p.name));
  const fields = known.filter((name) => !name.includes('__') && !['where', 'page', 'per_page', 'sort', 'fields', 'format'].includes(name));
  const byName = new Map(op.queryParams.map((p) => [String(p.name), p]));
  const own = (name: string): fc.Arbitrary<string> => {
    if (name === 'where') return whereFilters(fields).map((filter) => encode(JSON.stringify(filter) ?? ''));
    const schema = byName.get(name)?.schema as OpenApiObject | undefined;
    if (name === 'sort' || name === 'fields') {
      const items = ((schema?.items as OpenApiObject | undefined)?.enum as string[] | undefined) ?? fields;
      return fc.array(fc.constantFrom(...items, '-_id', 'nope', '-', ''), { maxLength: 3 }).map((list) => encode(list.join(',')));
    }
    if (name === 'page' || name === 'per_page') return fc.integer({ min: -1, max: 120 }).map(String);
    // Lists are comma-separated (`style: form`, `explode: false`).
    const text = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(text).join(',') : (JSON.stringify(v) ?? ''));
    return plausible(schema, name.replace(/__.*$/, ''), fixtures).map((v) => encode(text(v)));
  };
  const anyValue = (name: string): fc.Arbitrary<string> =>
    weighted<string>([3, own(name)], [1, fc.constantFrom(...numberTexts).map(encode)], [1, text.map(encode)], [1, fc.constantFrom(...rawParts)], [1, fc.constantFrom(...fixtures.allIds)]);
  const name = weighted<string>(...(known.length > 0 ? [[6, fc.constantFrom(...known)] as [number, fc.Arbitrary<string>]] : []), [1, text.map(encode)], [1, fc.constantFrom(...rawQueryNames)]);
  const pair = name.chain((n) => weighted<string>([6, anyValue(n).map((v) => `${n}=${v}`)], [1, fc.constant(n)], [1, fc.constant(`${n}=`)]));
  const fuzzed = fc.tuple(fc.array(pair, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.constantFrom('', '&', '&&', '#frag')).map(([pairs, repeat, tail]) => {
    const all = repeat && pairs[0] !== undefined ? [...pairs, pairs[0]] : pairs;
    return `?${all.join('&')}${tail}`;
  });
  if (known.length === 0) return weighted<string>([4, fc.constant('')], [1, fuzzed]);
  // Required parameters always, some others (a few of the many `<field>__<op>` filters).
  const required = op.queryParams.filter((p) => p.required === true).map((p) => String(p.name));
  const operators = known.filter((n) => n.includes('__'));
  const optional = [...known.filter((n) => !n.includes('__')), ...operators.filter((_, i) => i % 7 === 0)].filter((n) => !required.includes(n));
  const clean = fc
    .subarray(optional, { maxLength: Math.min(3, optional.length) })
    .chain((names) => fc.tuple(...[...required, ...names].map((n) => own(n).map((v) => `${n}=${v}`))))
    .map((pairs) => (pairs.length > 0 ? `?${pairs.join('&')}` : ''));
  return weighted<string>([1, fc.constant('')], [3, clean], [3, fuzzed]);
}

/** Values of one path parameter: real ids mixed with unknown ids and garbage. */
function segments(op: FuzzedOperation, param: string, fixtures: Fixtures): fc.Arbitrary<string> {
  const resource = resourceOf(op.path);
  let real: readonly string[] = fixtures.allIds;
  if (param === 'delivery_id') real = [fixtures.deliveryId];
  else if (param === 'provider') real = ['local'];
  else if (param === 'file') real = [fixtures.asset];
  else if (op.path.endsWith('/receive')) real = [fixtures.incomingWebhook];
  else if (op.path.includes('/deliveries')) real = [fixtures.outgoingWebhook];
  else if (resource && fixtures.ids[resource]?.length) real = fixtures.ids[resource] ?? [];
  return weighted<string>(
    [5, fc.constantFrom(...real)],
    [1, fc.constantFrom(...fixtures.allIds)],
    [1, fc.uuid().map(encode)],
    [2, text.map(encode)],
    [2, fc.constantFrom(...rawParts)],
    [1, fc.constantFrom(...encodingHazards)],
  );
}

/**
 * The operation's documented request headers (`Idempotency-Key` on every POST, `X-Tenant-Id`,
 * `DPoP`), each sometimes sent with a plausible or a wrong value; `If-Match` is chosen apart.
 */
function headers(op: FuzzedOperation): fc.Arbitrary<Record<string, string>> {
  const values: Record<string, fc.Arbitrary<string>> = {
    'idempotency-key': weighted<string>([4, fc.stringMatching(/^[\x21-\x7e]{1,40}$/)], [1, fc.constantFrom('', ' ', 'k'.repeat(256), '!')]),
    'x-tenant-id': fc.constantFrom('system', '00000000-0000-0000-0000-000000000000', '../x', 'x'.repeat(65), ''),
    dpop: fc.constantFrom('a.b.c', 'garbage', ''),
    accept: fc.constantFrom('text/html', 'application/xml', '*/*', 'application/problem+json', ''),
  };
  const odds: Record<string, number> = { 'idempotency-key': 3, 'x-tenant-id': 12, dpop: 12, accept: 12 };
  const names = [...op.headerParams.filter((name) => name in values), 'accept'];
  return fc
    .tuple(...names.map((name) => weighted<string | undefined>([(odds[name] ?? 2) - 1, fc.constant(undefined)], [1, values[name] ?? fc.constant('')]).map((value) => [name, value] as const)))
    .map((pairs) => Object.fromEntries(pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined)));
}

function inputs(op: FuzzedOperation, fixtures: Fixtures): fc.Arbitrary<Input> {
  const body = op.key === tokenEndpoint ? formBodies(fixtures) : jsonBodies(op, fixtures);
  return fc.record({
    segments: fc.tuple(...op.pathParams.map((param) => segments(op, param, fixtures))),
    query: queries(op, fixtures),
    body: op.write ? body : fc.constant({}),
    auth: weighted<Auth>([16, fc.constant('token')], [1, fc.constantFrom<Auth>('none', 'garbage', 'basic', 'dpop-unbound')]),
    ifMatch:
      op.method === 'PATCH'
        ? weighted<IfMatch>([6, fc.constant('current')], [1, fc.constantFrom<IfMatch>('none', 'garbage', 'star', 'weak')])
        : fc.constantFrom<IfMatch>('none', 'garbage', 'current', 'star', 'weak'),
    headers: headers(op),
  });
}

/** The response header as one string. */
const header = (res: LightMyRequestResponse, name: string) => String(res.headers[name] ?? '');

/** What a request sent, for the failure message. */
function describeSent(sent: Sent): string {
  const abridged = (t: string) => (t.length > 600 ? `${t.slice(0, 300)} …(${t.length} characters)… ${t.slice(-100)}` : t);
  const payload = sent.payload === undefined ? '' : Buffer.isBuffer(sent.payload) ? `\n  body (hex): ${abridged(sent.payload.toString('hex'))}` : `\n  body: ${abridged(sent.payload)}`;
  const headers = Object.entries(sent.headers)
    .filter(([name]) => name !== 'authorization' || !sent.headers.authorization?.startsWith('Bearer ey'))
    .map(([name, value]) => `${name}: ${value.slice(0, 80)}`)
    .join('; ');
  return `${sent.method} ${abridged(sent.url)}\n  headers: ${headers}${payload}`;
}

/** Checks one answer: below 500, the documented error format, no leaks. Returns a complaint or undefined. */
function complaint(op: FuzzedOperation, sent: Sent, res: LightMyRequestResponse): string | undefined {
  const status = res.statusCode;
  if (status >= 500) return `answered ${status}`;
  // An error may repeat what the request itself sent.
  const payload = Buffer.isBuffer(sent.payload) ? sent.payload.toString('latin1') : (sent.payload ?? '');
  const requestText = `${sent.url}\n${decodeURIComponentSafe(sent.url)}\n${payload}`;
  for (const pattern of status < 300 ? stackLeaks : errorLeaks) if (pattern.test(res.body) && !pattern.test(requestText)) return `body leaks ${pattern}`;
  if (status < 400) return undefined;
  const type = header(res, 'content-type');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return `a ${status} whose body is not JSON (${type})`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `a ${status} whose body is not a JSON object`;
  if (op.key === tokenEndpoint) {
    if (!/^application\/json\b/.test(type)) return `a token error as ${type}, not application/json`;
    if (typeof body.error !== 'string' || !/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(body.error)) return 'a token error without an RFC 6749 `error` code';
    if (body.error_description !== undefined && typeof body.error_description !== 'string') return 'a token error whose `error_description` is not a string';
    if (!header(res, 'cache-control').includes('no-store')) return 'a token error without Cache-Control: no-store';
    return undefined;
  }
  if (!/^application\/problem\+json\b/.test(type)) return `a ${status} as ${type}, not application/problem+json`;
  for (const member of ['type', 'title', 'detail', 'instance', 'code']) if (typeof body[member] !== 'string') return `a problem without a string \`${member}\``;
  if (body.status !== status) return `a problem whose status ${String(body.status)} is not the HTTP status ${status}`;
  return undefined;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

describe.each(dialects)('every operation of the OpenAPI document survives bad input on %s', (dialect) => {
  let h: Harness;
  let doc: OpenApiDocument;
  let provider: TestOidcProvider;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let adminDir: string;
  let clientToken = '';
  let userToken = '';
  let fixtures: Fixtures;
  let fingerprintQuery = '';
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    ensureSbom();
    // A console build of one page and one asset: `/admin` answers without `npm run build`.
    adminDir = mkdtempSync(join(tmpdir(), 'bad-input-admin-'));
    mkdirSync(join(adminDir, 'assets'));
    writeFileSync(join(adminDir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(adminDir, 'assets', 'index-abc123.js'), 'export {};');
    smtp = await startSmtp();
    provider = await startOidcProvider({ redirectUris: ['http://api.test/v1/auth/oauth/local/callback'], accounts: { alice: { email: 'fuzz-user@example.com', emailVerified: true } } });
    const providers = JSON.stringify([{ id: 'local', issuer: provider.issuer, client_id: provider.clientId, client_secret: provider.clientSecret }]);
    h = await createHarness(dialect, {
      clock: { now },
      adminDir,
      env: { SMTP_URL: smtp.url, OAUTH_PROVIDERS: providers, OAUTH_ALLOW_HTTP_ISSUERS: 'true', OAUTH_REDIRECT_URIS: appRedirect },
    });
    doc = await fetchDocument(h);

    // Every capability the document declares: the operations' own and the OAuth scopes (field capabilities too).
    const scopes = Object.keys(((doc.components.securitySchemes.oauth2?.flows as OpenApiObject).clientCredentials as OpenApiObject).scopes as object);
    const declared = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op['x-capability'] ? [op['x-capability']] : [])));
    const capabilities = [...new Set([...scopes, ...declared])].sort();
    const partner = await h.tenant('Fuzz partner', 'partner');
    clientToken = await h.bearer(partner, capabilities);

    const post = async (url: string, body: unknown) => {
      const res = await h.request({ method: 'POST', url, token: clientToken, body });
      if (res.statusCode >= 300) throw new Error(`fixture ${url}: ${res.statusCode} ${res.body}`);
      return res.json() as Record<string, unknown>;
    };
    const ids: Partial<Record<ResourceName, string[]>> = {};
    const add = (resource: ResourceName, id: unknown) => (ids[resource] ??= []).push(String(id));
    add('tenants', (await post('/v1/tenants', { name: 'Fuzz child', level: 'tenant' }))._id);
    const parents = { productId: '', userId: '' };
    for (const resource of ['products', 'products', 'users', 'users'] as const) {
      const body = resource === 'users' ? { email: `fixture${ids.users?.length ?? 0}@example.com`, first_name: 'Fix' } : minimalBody(resource, parents);
      add(resource, (await post(`/v1/${resource}`, body))._id);
    }
    Object.assign(parents, { productId: ids.products?.[0] ?? '', userId: ids.users?.[0] ?? '' });
    for (const resource of ['bookings', 'orders', 'service-charges', 'subscriptions', 'consents', 'api-clients', 'webhooks', 'legal-holds', 'retention-policies'] as const) {
      add(resource, (await post(`/v1/${resource}`, minimalBody(resource, parents)))._id);
    }
    const incoming = String((await post('/v1/webhooks', { direction: 'incoming', scheme: 'standard-webhooks' }))._id);
    add('webhooks', incoming);
    const outgoing = ids.webhooks?.[0] ?? '';
    const deliveryId = String((await post(`/v1/webhooks/${outgoing}/test`, undefined)).delivery_id);
    const audit = await h.request({ method: 'GET', url: '/v1/audit-logs?per_page=2', token: clientToken });
    for (const entry of audit.json().items as { _id: string }[]) add('audit-logs', entry._id);

    // An end user's token for the TOTP operations, which take no client token.
    const userEmail = 'fuzz-user@example.com';
    await post('/v1/users', { email: userEmail, role: 'admin' });
    userToken = await signInByEmail(h, smtp, partner, userEmail, { advance: (ms) => (offset += ms), now });
    // A challenge waiting for its code, and a login state waiting for its callback.
    offset += 61_000;
    const challenge = await h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: partner, channel: 'email', destination: userEmail } });
    const started = await h.request({ method: 'GET', url: `/v1/auth/oauth/local/start?tenant_id=${partner}&redirect_uri=${encodeURIComponent(appRedirect)}` });
    const oauthState = new URL(header(started, 'location')).searchParams.get('state') ?? '';

    fixtures = {
      ids,
      allIds: Object.values(ids).flat(),
      incomingWebhook: incoming,
      outgoingWebhook: outgoing,
      deliveryId,
      emails: [userEmail, 'fixture0@example.com'],
      tenantIds: [partner, ...(ids.tenants ?? [])],
      capabilities,
      clientId: ids['api-clients']?.[0] ?? '',
      publicPem: clientKeyPair().publicPem,
      challengeId: String(challenge.json().challenge_id),
      oauthState,
      issuer: provider.issuer,
      asset: 'index-abc123.js',
    };

    // One statement that counts what a write leaves behind: rows, soft deletions and the
    // latest change of every resource table, the data entries of the audit trail, and the
    // service tables a write fills.
    const tables = await h.database.db.introspection.getTables();
    const columns = new Map(tables.map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
    const parts: string[] = [`(select count(*) from audit_logs where category = 'data') as audit_data`];
    for (const table of [...resources.map((r) => r.table).filter((t) => t !== 'audit_logs'), ...serviceTables]) {
      const has = columns.get(table);
      if (!has) continue;
      const measures = ['count(*)', ...(has.has('deleted_at') ? ['count(deleted_at)'] : []), ...(has.has('updated_at') ? ["coalesce(cast(max(updated_at) as text), '-')"] : [])];
      parts.push(`(select ${measures.map((m) => `cast(${m} as text)`).join(" || ' ' || ")} from "${table}") as "${table}"`);
    }
    fingerprintQuery = `select ${parts.join(', ')}`;
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([provider?.close(), smtp?.close()]);
    if (adminDir) rmSync(adminDir, { recursive: true, force: true });
  });

  const fingerprint = async (): Promise<Record<string, string>> => {
    const { rows } = await sql.raw<Record<string, unknown>>(fingerprintQuery).execute(h.database.db);
    return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, String(v)]));
  };

  /** The current ETag of the record a PATCH or DELETE URL names, when it exists. */
  const currentEtag = async (url: string): Promise<string | undefined> => {
    const res = await h.request({ method: 'GET', url: url.split('?')[0] ?? url, token: clientToken });
    return res.statusCode === 200 ? header(res, 'etag') : undefined;
  };

  /** The fingerprint the last write left, while no other request came between. */
  let settled: Record<string, string> | undefined;

  /** Sends one fuzzed request and throws with the repro when the answer breaks a rule. */
  const exercise = async (op: FuzzedOperation, input: Input): Promise<void> => {
    let i = 0;
    const path = op.path.replace(/\{[^}]+\}/g, () => input.segments[i++] ?? '');
    const url = `${path}${input.query}`;
    const headers: Record<string, string> = { ...input.headers };
    const token = op.caller === 'user' ? userToken : clientToken;
    if (op.caller !== 'none' || input.auth !== 'token') {
      if (input.auth === 'token') headers.authorization = `Bearer ${token}`;
      if (input.auth === 'garbage') headers.authorization = 'Bearer not.a.token';
      if (input.auth === 'basic') headers.authorization = 'Basic dXNlcjpwYXNz';
      if (input.auth === 'dpop-unbound') headers.authorization = `DPoP ${token}`;
    }
    if (op.method === 'PATCH' || op.method === 'DELETE') {
      if (input.ifMatch === 'current') {
        const etag = await currentEtag(url);
        if (etag) headers['if-match'] = etag;
      }
      if (input.ifMatch === 'garbage') headers['if-match'] = '"not-the-etag"';
      if (input.ifMatch === 'star') headers['if-match'] = '*';
      if (input.ifMatch === 'weak') headers['if-match'] = 'W/"x"';
    }
    if (input.body.contentType !== undefined) headers['content-type'] = input.body.contentType;
    Object.assign(headers, input.body.headers);
    const sent: Sent = { method: op.method, url, headers, ...(input.body.payload === undefined ? {} : { payload: input.body.payload }) };

    // The database before: as the previous write left it (reads change none of it), or counted now.
    const before = op.write ? (settled ?? (await fingerprint())) : undefined;
    settled = undefined;
    const res = await h.app.server.inject({ method: op.method as 'GET', url, headers, ...(sent.payload === undefined ? {} : { payload: sent.payload }) });
    const after = op.write ? await fingerprint() : undefined;
    settled = after;
    const problem = complaint(op, sent, res);
    if (problem) throw new Error(`${problem}\n  ${describeSent(sent)}\n  answer ${res.statusCode} ${header(res, 'content-type')}: ${res.body.slice(0, 800)}`);
    if (before && after && res.statusCode >= 400) {
      const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
      if (changed.length > 0) {
        const diff = changed.map((k) => `${k}: ${before[k]} → ${after[k]}`).join(', ');
        throw new Error(`a refused write (${res.statusCode}) changed the database: ${diff}\n  ${describeSent(sent)}\n  answer: ${res.body.slice(0, 400)}`);
      }
    }
  };

  it('sees a write in the fingerprint it compares refused writes with', async () => {
    const quiet = await fingerprint();
    const created = await h.request({ method: 'POST', url: '/v1/products', token: clientToken, body: productBody });
    expect(created.statusCode, created.body).toBe(201);
    const afterCreate = await fingerprint();
    const id = String(created.json()._id);
    const updated = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token: clientToken, body: { name: 'Renamed' }, headers: { 'if-match': header(created, 'etag') } });
    expect(updated.statusCode, updated.body).toBe(200);
    const afterUpdate = await fingerprint();
    const differ = (a: Record<string, string>, b: Record<string, string>) => Object.keys(b).filter((k) => a[k] !== b[k]);
    expect(differ(quiet, afterCreate).sort()).toEqual(['audit_data', 'outbox_events', 'products']);
    // An update changes no count: the table's latest `updated_at` shows it.
    expect(differ(afterCreate, afterUpdate).sort()).toEqual(['audit_data', 'outbox_events', 'products']);
  });

  it('answers every fuzzed request of every operation below 500, as a problem, without leaks or partial writes', async () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(90);
    const failures: string[] = [];
    for (const op of operations) {
      const seed = seedOf(op.key + (process.env.BAD_INPUT_SEED ?? ''));
      const result = await fc.check(
        fc.asyncProperty(fc.limitShrink(inputs(op, fixtures), shrinkBudget), (input) => exercise(op, input)),
        { numRuns: op.write ? runs.write : runs.read, seed },
      );
      if (result.failed) {
        const error = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        failures.push(`${op.key} (seed ${seed}, path ${result.counterexamplePath ?? '?'}):\n  ${error}`);
      }
    }
    expect(failures, `${failures.length} operations broke a rule:\n\n${failures.join('\n\n')}`).toEqual([]);
  }, 300_000);
});

describe('the checks every fuzzed answer goes through', () => {
  const operation: Operation = { operationId: 'listProducts', summary: 'List', tags: [], responses: {} };
  const listing: FuzzedOperation = { key: 'GET /v1/products', method: 'GET', path: '/v1/products', operation, caller: 'client', pathParams: [], queryParams: [], headerParams: [], write: false };
  const token: FuzzedOperation = { ...listing, key: tokenEndpoint, method: 'POST', path: '/v1/auth/token', caller: 'none', write: true };
  const sent: Sent = { method: 'GET', url: '/v1/products', headers: {} };
  const answer = (statusCode: number, body: string, headers: Record<string, string>) => ({ statusCode, body, headers }) as unknown as LightMyRequestResponse;
  const problemJson = { 'content-type': 'application/problem+json; charset=utf-8' };
  const problem = (status: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'https://booking.example/problems/x', title: 't', status, detail: 'd', instance: '/v1/products', code: 'c', ...extra });

  it('passes a problem and an RFC 6749 error at the token endpoint', () => {
    expect(complaint(listing, sent, answer(400, problem(400), problemJson))).toBeUndefined();
    expect(complaint(token, sent, answer(400, '{"error":"invalid_request"}', { 'content-type': 'application/json', 'cache-control': 'no-store' }))).toBeUndefined();
    expect(complaint(listing, sent, answer(302, '', { location: 'https://app.example/signed-in' }))).toBeUndefined();
  });

  it('flags a 5xx, an error that is no problem, a wrong status member, a missing code and leaks', () => {
    expect(complaint(listing, sent, answer(503, problem(503), problemJson))).toMatch(/answered 503/);
    expect(complaint(listing, sent, answer(404, '<h1>Not found</h1>', { 'content-type': 'text/html' }))).toMatch(/not JSON/);
    expect(complaint(listing, sent, answer(400, '{"error":"invalid_request"}', { 'content-type': 'application/json' }))).toMatch(/not application\/problem\+json/);
    expect(complaint(listing, sent, answer(400, problem(422), problemJson))).toMatch(/status 422 is not the HTTP status 400/);
    expect(complaint(listing, sent, answer(400, problem(400, { code: undefined }), problemJson))).toMatch(/`code`/);
    expect(complaint(token, sent, answer(400, problem(400), problemJson))).toMatch(/not application\/json/);
    expect(complaint(token, sent, answer(401, '{"error":"invalid_client"}', { 'content-type': 'application/json' }))).toMatch(/no-store/);
    const leaky = problem(400, { detail: 'TypeError: x\n    at parse (/work/main/src/http/body.ts:12:7)' });
    expect(complaint(listing, sent, answer(400, leaky, problemJson))).toMatch(/leaks/);
    expect(complaint(listing, sent, answer(400, problem(400, { detail: 'SQLITE_ERROR: no such column: x' }), problemJson))).toMatch(/leaks/);
    expect(complaint(listing, sent, answer(200, '{"note":"    at Object.<anonymous> (file.js:1:2)"}', { 'content-type': 'application/json' }))).toMatch(/leaks/);
  });

  it('lets an error repeat text the request sent', () => {
    const echoed: Sent = { ...sent, url: `/v1/products?name=${encode('SELECT ')}` };
    expect(complaint(listing, echoed, answer(400, problem(400, { detail: 'name: SELECT  is not a filter' }), problemJson))).toBeUndefined();
  });
});
