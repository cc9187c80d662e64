import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../../src/actions/capabilities.js';
import { API_VERSION } from '../../../src/routes/openapi-document.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { openApiPath } from '../../../src/routes/openapi-route-paths.js';
import type { OpenApiObject, Operation } from '../../../src/derive/openapi/types.js';
import { resources } from '../../../src/registry/index.js';
import { isDocsAsset } from '../../../src/routes/docs.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { fetchDocument } from './openapi-support.js';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('the OpenAPI document', () => {
  let h: Harness;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    doc = await fetchDocument(h);
  });
  afterAll(() => h.close());

  const documentedRoutes = () => h.app.routes.routes.filter((route) => !isDocsAsset(route.url));

  it('is served without authentication, as JSON, publicly cacheable for 5 minutes', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('names the API version and the PUBLIC_URL server', () => {
    expect(doc.info.version).toBe(API_VERSION);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'http://api.test' })]);
  });

  it('documents every registered route with its method', () => {
    const missing = documentedRoutes()
      .filter((route) => doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()] === undefined)
      .map((route) => `${route.method} ${route.url}`);
    expect(missing).toEqual([]);
    expect(documentedRoutes().length).toBeGreaterThan(60);
  });

  it('documents no operation that is not a registered route (a trailing-slash form repeats a registered one)', () => {
    const registered = new Set(documentedRoutes().map((route) => `${route.method} ${openApiPath(route.url)}`));
    const extra = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => methods.includes(m))
        .map(([m, operation]) => `${m.toUpperCase()} ${operation['x-alias-of'] === undefined ? path : path.replace(/\/$/, '')}`)
        .filter((key) => !registered.has(key)),
    );
    expect(extra).toEqual([]);
  });

  it('declares the list and create of every collection again at its trailing-slash form, under an operationId of its own', () => {
    const operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
    const collections = [...resources.map((r) => `/v1/${r.name}`), '/v1/products/{id}/rates', '/v1/products/{id}/calendar-imports', '/v1/webhooks/{id}/deliveries'];
    for (const collection of collections) {
      for (const method of ['get', 'post'] as const) {
        const canonical = doc.paths[collection]?.[method];
        const alias = doc.paths[`${collection}/`]?.[method];
        expect(alias === undefined, `${method} ${collection}/`).toBe(canonical === undefined);
        if (!canonical || !alias) continue;
        expect(alias.operationId).toBe(`${canonical.operationId}_trailing_slash`);
        expect(withoutNames(alias)).toEqual({ ...withoutNames(canonical), 'x-alias-of': canonical.operationId });
        expect(alias.summary).toContain(canonical.summary);
        expect(alias.description).toContain(`\`${canonical.operationId}\``);
      }
    }
    // Only collections: a record's own path (`/v1/products/{id}/`) is not declared twice.
    const aliases = Object.keys(doc.paths).filter((path) => path.endsWith('/') && path !== '/');
    expect(aliases.sort()).toEqual(
      collections
        .filter((c) => doc.paths[c]?.get ?? doc.paths[c]?.post)
        .map((c) => `${c}/`)
        .sort(),
    );
  });

  it('requires no field of a list item but `_id`, so `fields` may select any subset', () => {
    const lists = Object.entries(doc.paths).flatMap(([path, item]) => (((item.get?.parameters ?? []) as OpenApiObject[]).some((p) => p.name === 'fields') ? [path] : []));
    expect(lists.length).toBeGreaterThan(resources.length);
    const resolve = (schema: OpenApiObject): OpenApiObject => (typeof schema.$ref === 'string' ? (doc.components.schemas[schema.$ref.split('/').pop() ?? ''] ?? {}) : schema);
    for (const path of lists) {
      const content = (doc.paths[path]?.get?.responses[200]?.content as Record<string, OpenApiObject> | undefined)?.['application/json'];
      if (!content) continue;
      const page = resolve(content.schema as OpenApiObject);
      const item = resolve((page.properties as Record<string, OpenApiObject>).items?.items as OpenApiObject);
      // An availability item always carries its stay, `available` and the stay's `price`, whatever `fields` selects.
      const always = path === '/v1/availability' ? ['_id', 'available', 'price'] : ['_id'];
      expect(item.required, path).toEqual(always);
    }
  });

  it('declares the access of each operation exactly as its route does', () => {
    for (const route of documentedRoutes()) {
      const operation = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (route.config.public === true) {
        expect(operation?.['x-capability'], route.url).toBeUndefined();
        if (route.url !== '/metrics') expect(operation?.security, route.url).toEqual([]);
      } else if (route.config.anyUser === true) {
        expect(operation?.['x-capability'], route.url).toBeUndefined();
        expect(operation?.security, route.url).toEqual([{ bearer: [] }]);
      } else {
        expect(operation?.['x-capability'], route.url).toBe(route.config.capability);
        expect(operation?.security, route.url).toContainEqual({ oauth2: [route.config.capability] });
      }
    }
  });

  it('offers exactly the capability list as the oauth2 client-credentials scopes', () => {
    const flow = (doc.components.securitySchemes.oauth2?.flows as Record<string, OpenApiObject>).clientCredentials;
    expect(flow?.tokenUrl).toBe(h.config.tokenEndpoint);
    expect(Object.keys(flow?.scopes as object).sort()).toEqual(capabilities.map((c) => c.name).sort());
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.components.securitySchemes.dpop).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  });

  it('documents every operation each resource declares, on the canonical paths', () => {
    for (const resource of resources) {
      const collection = doc.paths[`/v1/${resource.name}`];
      const item = doc.paths[`/v1/${resource.name}/{id}`];
      const expected: Record<string, Operation | undefined> = {
        list: collection?.get,
        create: collection?.post,
        read: item?.get,
        update: item?.patch,
        delete: item?.delete,
        export: doc.paths[`/v1/${resource.name}/export`]?.get,
      };
      for (const [op, operation] of Object.entries(expected)) {
        expect(operation !== undefined, `${resource.name} ${op}`).toBe(resource.operations.includes(op as never));
      }
      expect(collection?.get?.description).toContain(`/v1/${resource.name}/`);
    }
  });

  it('lists one filter parameter per filterable field and allowed operator', () => {
    const names = (doc.paths['/v1/products']?.get?.parameters ?? []).map((p) => (p as OpenApiObject).name).filter(Boolean);
    expect(names).toEqual(expect.arrayContaining(['sort', 'fields', 'city', 'city__regex', 'city__in', 'total_items__gte', 'is_published', 'is_published__exists', 'created_at__lt']));
    // Booleans have no order and no regex; sensitive fields are not filterable at all.
    expect(names).not.toContain('is_published__gt');
    expect(names).not.toContain('total_items__regex');
    const userParams = (doc.paths['/v1/users']?.get?.parameters ?? []).map((p) => (p as OpenApiObject).name);
    expect(userParams.some((name) => String(name).startsWith('email'))).toBe(false);
    const refs = (doc.paths['/v1/products']?.get?.parameters ?? []).map((p) => (p as OpenApiObject).$ref);
    expect(refs).toEqual(expect.arrayContaining(['#/components/parameters/where', '#/components/parameters/page', '#/components/parameters/per_page']));
    expect(doc.components.parameters.per_page?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
  });

  it('requires If-Match on PATCH and DELETE and documents the ETag, list and tenant headers', () => {
    const item = doc.paths['/v1/products/{id}'];
    for (const operation of [item?.patch, item?.delete]) {
      expect(operation?.parameters).toContainEqual({ $ref: '#/components/parameters/IfMatch' });
      expect(operation?.responses).toMatchObject({ 412: { $ref: '#/components/responses/PreconditionFailed' }, 428: { $ref: '#/components/responses/PreconditionRequired' } });
    }
    expect(doc.components.parameters.IfMatch).toMatchObject({ in: 'header', required: true });
    expect(item?.get?.parameters).toContainEqual({ $ref: '#/components/parameters/XTenantId' });
    expect(Object.keys(doc.paths['/v1/products']?.get?.responses[200]?.headers as object)).toEqual(['X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'Link']);
    expect(Object.keys(doc.paths['/v1/products']?.post?.responses[201]?.headers as object)).toEqual(['ETag', 'Location', 'Idempotency-Replayed']);
    expect(item?.delete?.responses[409]).toEqual({ $ref: '#/components/responses/Conflict' });
  });

  it('documents Idempotency-Key on every authenticated POST, with its 409 and 422', () => {
    const posts = Object.values(doc.paths).flatMap((path) => (path.post && path.post['x-capability'] ? [path.post] : []));
    expect(posts.length).toBeGreaterThan(10);
    for (const operation of posts) {
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(operation.responses).toMatchObject({ 409: { $ref: '#/components/responses/Conflict' }, 422: { $ref: '#/components/responses/UnprocessableContent' } });
    }
    expect(doc.paths['/v1/auth/token']?.post?.parameters).not.toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
  });

  it('answers every error as application/problem+json with the shared Problem schema', () => {
    for (const [status, name] of Object.entries(problemResponses)) {
      expect(doc.components.responses[name]?.content, status).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    }
    expect(doc.components.responses.Unauthorized?.headers).toHaveProperty('WWW-Authenticate');
    expect(doc.components.responses.TooManyRequests?.headers).toHaveProperty('Retry-After');
    expect(doc.components.responses.MethodNotAllowed?.headers).toHaveProperty('Allow');
    expect(doc.components.schemas.Problem?.required).toEqual(['type', 'title', 'status', 'detail', 'instance', 'code']);
  });

  it('documents the token endpoint: form body, token response and RFC 6749 errors', () => {
    const token = doc.paths['/v1/auth/token']?.post;
    expect(token?.security).toEqual([]);
    expect(Object.keys(token?.requestBody?.content as object)).toEqual(['application/x-www-form-urlencoded']);
    const errors = (doc.components.schemas.OAuthError?.properties as Record<string, OpenApiObject>).error?.enum;
    expect(errors).toEqual(expect.arrayContaining(['invalid_request', 'invalid_client', 'invalid_scope', 'invalid_dpop_proof', 'use_dpop_nonce']));
  });

  it('marks sensitive fields with their capabilities and every field with its GDPR class', () => {
    const users = doc.components.schemas.UsersRecord?.properties as Record<string, OpenApiObject>;
    // Records also read the erasure marker; bodies keep the format the service enforces.
    expect((doc.components.schemas.UsersCreate?.properties as Record<string, OpenApiObject>).email).toMatchObject({ format: 'email' });
    expect(users.email).toMatchObject({
      anyOf: [{ format: 'email' }, { const: '[erased]' }],
      'x-sensitive': true,
      'x-capability-read': 'users:read:email',
      'x-capability-write': 'users:write:email',
      'x-gdpr': 'personal',
    });
    expect(users.date_of_birth).toMatchObject({ type: ['string', 'null'], 'x-gdpr': 'special' });
    for (const resource of resources) {
      for (const [name, schema] of Object.entries(doc.components.schemas[`${pascal(resource.name)}Record`]?.properties as Record<string, OpenApiObject>)) {
        expect(schema['x-gdpr'], `${resource.name}.${name}`).toBe(resource.fields[name]?.gdpr);
      }
    }
  });

  it('keeps write-only fields out of records, server-owned out of bodies, create-only out of updates', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.ApiClientsRecord?.properties as object)).not.toContain('public_key');
    expect(schemas.ApiClientsRecord?.properties).toHaveProperty('keys.readOnly', true);
    expect(schemas.ApiClientsCreate?.properties).toHaveProperty('public_key.writeOnly', true);
    expect(schemas.ApiClientsCreate?.required).toEqual(['name', 'capabilities', 'public_key']);
    expect(Object.keys(schemas.ApiClientsCreate?.properties as object)).not.toContain('client_id');
    expect(Object.keys(schemas.ApiClientsUpdate?.properties as object)).not.toContain('public_key');
    expect(Object.keys(schemas.BookingsUpdate?.properties as object)).not.toContain('product_id');
    expect(schemas.BookingsCreate).toMatchObject({ additionalProperties: false, required: ['product_id', 'start_time', 'end_time'] });
    expect(schemas.BookingsUpdate).toMatchObject({ additionalProperties: false, minProperties: 1 });
    expect(schemas.BookingsUpdate?.required).toBeUndefined();
    expect(schemas.ProductsRecord?.properties).toHaveProperty('status.enum', ['active', 'maintenance', 'retired']);
    expect(schemas.WebhooksRecord?.properties).toHaveProperty('url.format', 'uri');
    expect(schemas.AuditLogsCreate).toBeUndefined();
  });
});

describe('the rendered documentation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(() => h.close());

  it('/docs answers HTML without authentication', async () => {
    const res = await h.request({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<title>Booking service API</title>');
  });

  it('shows the generated document and loads its assets without authentication', async () => {
    const served = await h.request({ method: 'GET', url: '/docs/json' });
    expect(served.json()).toEqual(await fetchDocument(h));
    const script = await h.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
    const css = await h.request({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
  });

  it('GET / redirects a browser to /docs without authentication, and the document says so', async () => {
    const res = await h.request({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/docs');
    const root = h.app.routes.routes.find((route) => route.url === '/' && route.method === 'GET');
    expect(root?.config).toEqual({ public: true });
    const operation = (await fetchDocument(h)).paths['/']?.get;
    expect(operation).toMatchObject({ operationId: 'root', security: [], responses: { 302: { headers: { Location: expect.any(Object) } } } });
  });

  it('declares every documentation route public, so the route guard admits them', () => {
    const docs = h.app.routes.routes.filter((route) => route.url === '/docs' || isDocsAsset(route.url));
    expect(docs.length).toBeGreaterThanOrEqual(5);
    for (const route of docs) expect(route.config, route.url).toEqual({ public: true });
  });
});

/** An operation without its names (operationId, summary, description). */
function withoutNames(operation: Operation): Partial<Operation> {
  const copy: Partial<Operation> = { ...operation };
  delete copy.operationId;
  delete copy.summary;
  delete copy.description;
  return copy;
}

function pascal(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** The problem response component of each error status. */
const problemResponses: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  428: 'PreconditionRequired',
  429: 'TooManyRequests',
};
