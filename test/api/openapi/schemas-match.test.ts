import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { schemaName } from '../../../src/derive/openapi/resource-schemas.js';
import type { OpenApiObject } from '../../../src/derive/openapi/types.js';
import { resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { minimalBody, patchBody } from '../../support/resource-bodies.js';
import { expectSchema, fetchDocument, schemaValidators } from './openapi-support.js';

/** A value of the schema's type, as a query string carries it. */
function sample(schema: OpenApiObject): string {
  if (schema.type === 'array') return `${sample(schema.items as OpenApiObject)},${sample(schema.items as OpenApiObject)}`;
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
  switch (schema.type) {
    case 'integer':
      return '1';
    case 'number':
      return '1.5';
    case 'boolean':
      return 'true';
    default:
      return 'a';
  }
}

describe('the documented schemas match what the API sends and accepts', () => {
  let h: Harness;
  let doc: OpenApiDocument;
  let validators: (name: string) => ValidateFunction;
  let token: string;
  const records = new Map<ResourceName, Record<string, unknown>>();

  beforeAll(async () => {
    h = await createHarness('sqlite');
    doc = await fetchDocument(h);
    validators = schemaValidators(doc);
    const partner = await h.tenant('Acme', 'partner');
    const sensitive = ['email', 'phone', 'date_of_birth'].flatMap((f) => [`users:read:${f}`, `users:write:${f}`]);
    token = await h.bearer(partner, [...resources.flatMap((r) => r.operations.map((op) => `${r.name}:${op}`)), ...sensitive]);
  });
  afterAll(() => h.close());

  const send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => h.request({ method, url, token, body, ...(headers ? { headers } : {}) });

  it('create, read, update and list answer as documented for every writable resource', async () => {
    for (const resource of resources.filter((r) => r.operations.includes('create'))) {
      const parents = { productId: String(records.get('products')?._id ?? ''), userId: String(records.get('users')?._id ?? '') };
      const body = minimalBody(resource.name, parents);
      expectSchema(validators, schemaName(resource, 'Create'), body);
      const created = await send('POST', `/v1/${resource.name}`, body);
      expect(created.statusCode, created.body).toBe(201);
      expect(created.headers.etag).toBeDefined();
      expect(created.headers.location).toMatch(/^http:\/\/api\.test\/v1\//);
      expectSchema(validators, schemaName(resource, 'Record'), created.json());
      records.set(resource.name, created.json());

      const id = String(created.json()._id);
      const read = await send('GET', `/v1/${resource.name}/${id}`);
      expectSchema(validators, schemaName(resource, 'Record'), read.json());
      const properties = Object.keys(doc.components.schemas[schemaName(resource, 'Record')]?.properties as object);
      expect(
        Object.keys(read.json()).filter((key) => !properties.includes(key)),
        resource.name,
      ).toEqual([]);

      if (resource.operations.includes('update')) {
        const changes = patchBody(resource.name);
        expectSchema(validators, schemaName(resource, 'Update'), changes);
        const updated = await send('PATCH', `/v1/${resource.name}/${id}`, changes, { 'if-match': String(read.headers.etag) });
        expect(updated.statusCode, updated.body).toBe(200);
        expectSchema(validators, schemaName(resource, 'Record'), updated.json());
      }

      const list = await send('GET', `/v1/${resource.name}/?fields=created_at`);
      expect(list.statusCode).toBe(200);
      expectSchema(validators, schemaName(resource, 'List'), list.json());
    }
  });

  it('an API client of the root node is documented with a null tenant_id, and audit entries match their schema', async () => {
    const system = await h.bearer(null, ['api-clients:create', 'products:list', 'audit-logs:list']);
    const created = await h.request({ method: 'POST', url: '/v1/api-clients', token: system, body: minimalBody('api-clients', { productId: '', userId: '' }) });
    expect(created.json().tenant_id).toBeNull();
    expectSchema(validators, 'ApiClientsRecord', created.json());
    const audit = await h.request({ method: 'GET', url: '/v1/audit-logs?per_page=100', token: system });
    expect(audit.json().total).toBeGreaterThan(0);
    expectSchema(validators, 'AuditLogsList', audit.json());
  });

  it('every documented filter and sort parameter of every list is accepted', async () => {
    for (const resource of resources.filter((r) => r.operations.includes('list'))) {
      const parameters = (doc.paths[`/v1/${resource.name}`]?.get?.parameters ?? []) as OpenApiObject[];
      const refused: string[] = [];
      for (const parameter of parameters.filter((p) => p.in === 'query')) {
        const schema = parameter.schema as OpenApiObject;
        const values = parameter.name === 'sort' ? ((schema.items as OpenApiObject).enum as string[]) : [sample(schema)];
        for (const value of values) {
          const res = await send('GET', `/v1/${resource.name}?${new URLSearchParams({ [String(parameter.name)]: value }).toString()}`);
          if (res.statusCode !== 200) refused.push(`${String(parameter.name)}=${value}: ${res.body}`);
        }
      }
      expect(refused, resource.name).toEqual([]);
    }
  });

  it('problems and token responses match their schemas', async () => {
    const bad = await send('POST', '/v1/products', { name: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expectSchema(validators, 'Problem', bad.json());
    const noIfMatch = await send('PATCH', `/v1/products/${String(records.get('products')?._id)}`, { name: 'x' });
    expect(noIfMatch.statusCode).toBe(428);
    expectSchema(validators, 'Problem', noIfMatch.json());
    const anonymous = await h.request({ method: 'GET', url: '/v1/products' });
    expectSchema(validators, 'Problem', anonymous.json());

    const client = await h.client(null, crud('products'));
    const form = new URLSearchParams({ grant_type: 'password', client_id: client.clientId });
    const refused = await h.request({ method: 'POST', url: '/v1/auth/token', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectSchema(validators, 'OAuthError', refused.json());
    const tokenResponse = await h.request({ method: 'GET', url: '/v1/capabilities', token });
    expect(tokenResponse.statusCode).toBe(403);
    expectSchema(validators, 'Problem', tokenResponse.json());
  });
});
