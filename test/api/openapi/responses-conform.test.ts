import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiObject } from '../../../src/derive/openapi/types.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { productBody } from '../../support/resource-bodies.js';
import { fetchDocument } from './openapi-support.js';

const documentId = 'https://booking.example/openapi.json';

/** Headers a response must declare whenever it sends them: paging and record headers. */
const declaredWhenSent = ['X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'Link', 'ETag', 'Location'];

/** One JSON pointer segment inside a URI fragment. */
const segment = (name: string) => encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));

/**
 * Checks a real answer against the document: its status is declared by the operation
 * (only 5xx may fall to `default`), a body's media type is declared with a schema the JSON
 * body matches (Ajv, standard formats checked), and paging and record headers it sends
 * are declared.
 */
function conformance(doc: OpenApiDocument): (method: string, path: string, res: LightMyRequestResponse) => void {
  const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: documentId, paths: doc.paths, components: doc.components });
  return (method, path, res) => {
    const where = `${method} ${path} → ${res.statusCode}`;
    const operation = doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${where}: no such operation in the document`);
    const status = String(res.statusCode);
    const key = status in operation.responses ? status : res.statusCode >= 500 ? 'default' : undefined;
    if (key === undefined) throw new Error(`${where}: status not declared (declared: ${Object.keys(operation.responses).join(', ')}); body ${res.body}`);
    let pointer = `#/paths/${segment(path)}/${method.toLowerCase()}/responses/${segment(key)}`;
    let response = operation.responses[key] as OpenApiObject;
    if (typeof response.$ref === 'string') {
      // Component names are plain: the reference is already a pointer.
      pointer = response.$ref;
      response = doc.components.responses[response.$ref.split('/').pop() ?? ''] ?? {};
    }
    if (res.body.length > 0) {
      const type = String(res.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim();
      const content = response.content as Record<string, OpenApiObject> | undefined;
      if (!type || !content?.[type]) throw new Error(`${where}: answers ${type ?? 'no type'} content, the document declares ${JSON.stringify(Object.keys(content ?? {}))}`);
      if (type.endsWith('json')) {
        const validate = ajv.getSchema(`${documentId}${pointer}/content/${segment(type)}/schema`);
        if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
        if (!validate(JSON.parse(res.body))) throw new Error(`${where}: body does not match its schema: ${JSON.stringify(validate.errors, null, 2)}\n${res.body}`);
      }
    }
    const declared = Object.keys((response.headers as OpenApiObject | undefined) ?? {}).map((name) => name.toLowerCase());
    const undeclared = declaredWhenSent.filter((name) => res.headers[name.toLowerCase()] !== undefined && !declared.includes(name.toLowerCase()));
    if (undeclared.length > 0) throw new Error(`${where}: sends ${undeclared.join(', ')} without declaring them`);
  };
}

/** Real answers of the operations whose shapes the document once got wrong, checked against the document. */
describe('real answers conform to the OpenAPI document', () => {
  let h: Harness;
  let token: string;
  let expectDocumented: ReturnType<typeof conformance>;

  beforeAll(async () => {
    h = await createHarness('sqlite');
    expectDocumented = conformance(await fetchDocument(h));
    const tenant = await h.tenant('Conformance');
    const webhooks = ['create', 'read', 'list', 'retry', 'test'].map((op) => `webhooks:${op}`);
    const userFields = ['email', 'phone', 'date_of_birth'].flatMap((f) => [`users:read:${f}`, `users:write:${f}`]);
    token = await h.bearer(tenant, [...crud('products'), ...crud('bookings'), ...crud('users'), 'users:erase', ...userFields, ...webhooks, 'security:read']);
  });
  afterAll(() => h.close());

  const send = async (method: string, path: string, url: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await h.request({ method, url, token, body, ...(headers ? { headers } : {}) });
    expectDocumented(method, path, res);
    return res;
  };
  const patch = async (resource: string, id: string, body: unknown) => {
    const read = await send('GET', `/v1/${resource}/{id}`, `/v1/${resource}/${id}`);
    return send('PATCH', `/v1/${resource}/{id}`, `/v1/${resource}/${id}`, body, { 'if-match': String(read.headers.etag) });
  };

  it('PATCH answers its 409s as declared: capacity, lowered units, lifecycle, unavailable product, erased user', async () => {
    const product = await send('POST', '/v1/products', '/v1/products', { ...productBody, total_items: 2 });
    const productId = String(product.json()._id);
    const booking = (start: string, end: string, quantity: number) => send('POST', '/v1/bookings', '/v1/bookings', { product_id: productId, start_time: start, end_time: end, quantity });
    const full = await booking('2030-06-01T10:00:00Z', '2030-06-01T12:00:00Z', 2);
    expect(full.statusCode, full.body).toBe(201);
    const later = String((await booking('2030-06-03T10:00:00Z', '2030-06-03T12:00:00Z', 1)).json()._id);

    const moved = await patch('bookings', later, { start_time: '2030-06-01T11:00:00Z', end_time: '2030-06-01T12:00:00Z' });
    expect(moved.json()).toMatchObject({ status: 409, code: 'capacity_exceeded' });
    const lowered = await patch('products', productId, { total_items: 1 });
    expect(lowered.json()).toMatchObject({ status: 409, code: 'capacity_exceeded' });

    expect((await patch('bookings', later, { status: 'completed' })).statusCode).toBe(200);
    const reopened = await patch('bookings', later, { status: 'cancelled' });
    expect(reopened.json()).toMatchObject({ status: 409, code: 'invalid_transition' });

    expect((await patch('products', productId, { status: 'maintenance' })).statusCode).toBe(200);
    const enlarged = await patch('bookings', String(full.json()._id), { end_time: '2030-06-01T13:00:00Z' });
    expect(enlarged.json()).toMatchObject({ status: 409, code: 'product_unavailable' });

    const user = await send('POST', '/v1/users', '/v1/users', { email: 'erase-me@example.com', first_name: 'Ann' });
    const userId = String(user.json()._id);
    expect((await send('POST', '/v1/users/{id}/erase', `/v1/users/${userId}/erase`)).statusCode).toBe(200);
    const revived = await patch('users', userId, { status: 'active' });
    expect(revived.json()).toMatchObject({ status: 409, code: 'invalid_transition' });
  });

  it("an erased user's records match the record schemas, `[erased]` e-mail included", async () => {
    const user = await send('POST', '/v1/users', '/v1/users', { email: 'gone@example.com', first_name: 'Bo' });
    const userId = String(user.json()._id);
    await send('POST', '/v1/users/{id}/erase', `/v1/users/${userId}/erase`);
    const read = await send('GET', '/v1/users/{id}', `/v1/users/${userId}`);
    expect(read.json().email).toBe('[erased]');
    const list = await send('GET', '/v1/users', '/v1/users?fields=email,erased_at');
    expect(list.json().items.map((item: { email: string }) => item.email)).toContain('[erased]');
    // The format still holds for what clients write.
    const refused = await send('POST', '/v1/users', '/v1/users', { email: '[erased]' });
    expect(refused.statusCode).toBe(400);
  });

  it('the security questionnaire is the declared array', async () => {
    const res = await send('GET', '/v1/security/questionnaire', '/v1/security/questionnaire');
    expect(res.statusCode).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
  });

  /** An outgoing webhook and its queued `ping` delivery. */
  const pinged = async () => {
    const hook = await send('POST', '/v1/webhooks', '/v1/webhooks', { url: 'https://hooks.example.com/conform', events: ['products.created'] });
    expect(hook.statusCode, hook.body).toBe(201);
    const hookId = String(hook.json()._id);
    const ping = await send('POST', '/v1/webhooks/{id}/test', `/v1/webhooks/${hookId}/test`);
    return { hookId, deliveryId: String(ping.json().delivery_id) };
  };

  it("a webhook's deliveries, attempts and received events declare their paging headers", async () => {
    const { hookId, deliveryId } = await pinged();

    const deliveries = await send('GET', '/v1/webhooks/{id}/deliveries', `/v1/webhooks/${hookId}/deliveries`);
    expect(deliveries.headers['x-total-count']).toBe('1');
    const attempts = await send('GET', '/v1/webhooks/{id}/deliveries/{delivery_id}/attempts', `/v1/webhooks/${hookId}/deliveries/${deliveryId}/attempts`);
    expect(attempts.headers['x-total-pages']).toBe('1');
    const incoming = await send('POST', '/v1/webhooks', '/v1/webhooks', { direction: 'incoming', scheme: 'standard-webhooks' });
    const received = await send('GET', '/v1/webhooks/{id}/received', `/v1/webhooks/${String(incoming.json()._id)}/received`);
    expect(received.headers.link).toContain('rel="first"');
  });

  it('a delivery retry declares its 202 body', async () => {
    const { hookId, deliveryId } = await pinged();
    const retried = await send('POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', `/v1/webhooks/${hookId}/deliveries/${deliveryId}/retry`);
    expect(retried.json()).toEqual({ delivery_id: deliveryId, status: 'pending' });
  });

  it('catches an undeclared status, body or header', () => {
    const answer = (statusCode: number, body: string, headers: Record<string, string>) => ({ statusCode, body, headers }) as unknown as LightMyRequestResponse;
    const problem = JSON.stringify({ type: 'about:blank', title: 't', status: 409, detail: 'd', instance: '/v1/products/x', code: 'conflict' });
    expect(() => expectDocumented('GET', '/v1/products/{id}', answer(409, problem, { 'content-type': 'application/problem+json' }))).toThrow(/status not declared/);
    expect(() => expectDocumented('GET', '/v1/products/{id}', answer(200, '[]', { 'content-type': 'application/json' }))).toThrow(/does not match/);
    expect(() => expectDocumented('GET', '/v1/products/{id}', answer(200, '{}', { 'content-type': 'text/csv' }))).toThrow(/declares/);
    expect(() => expectDocumented('GET', '/v1/products/{id}', answer(404, problem.replace('409', '404'), { 'content-type': 'application/problem+json', 'x-total-count': '1' }))).toThrow(
      /X-Total-Count/,
    );
  });
});
