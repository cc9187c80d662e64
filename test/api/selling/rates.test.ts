import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSystem } from '../../../src/core/principal.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { ratesOf } from '../../../src/selling/product-rates.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { errorFields, expectProblem } from '../../support/problem.js';

/*
 * The rates of a product (docs/selling.md "Rates"): CRUD with ETags through the product's
 * capabilities, the product's tenant and reach, every refusal of a rate's values, the
 * overlap rule with touching ranges allowed, the audit trail, and the product lock that
 * keeps 20 parallel overlapping creates down to one.
 */
describe.each(dialects)('product rates on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let readOnly: string;
  let otherTenant: string;
  let validateAnswer: (method: string, path: string, res: LightMyRequestResponse) => void;

  beforeAll(async () => {
    // The parallel creates queue on the product's lock; on a busy machine the last waits
    // longer than the default statement timeout. The race is the subject, not the timeout.
    h = await createHarness(dialect, { database: { statementTimeoutMs: 60_000 } });
    const tenant = await h.tenant('Rates');
    token = await h.bearer(tenant, [...crud('products'), 'audit-logs:list']);
    readOnly = await h.bearer(tenant, ['products:read', 'products:list', 'products:create']);
    otherTenant = await h.bearer(await h.tenant('Elsewhere'), crud('products'));
    validateAnswer = conformance((await h.request({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument);
  });
  afterAll(() => h.close());

  async function product(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await h.request({
      method: 'POST',
      url: '/v1/products',
      token,
      body: { name: 'Room', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 2, price: 100, currency: 'EUR', ...extra },
    });
    expect(created.statusCode, created.body).toBe(201);
    return String(created.json()._id);
  }
  const rates = (productId: string) => `/v1/products/${productId}/rates`;
  const create = (productId: string, body: Record<string, unknown>, as = token) => h.request({ method: 'POST', url: rates(productId), token: as, body });
  async function created(productId: string, body: Record<string, unknown>): Promise<{ id: string; etag: string }> {
    const res = await create(productId, body);
    expect(res.statusCode, res.body).toBe(201);
    return { id: String(res.json()._id), etag: String(res.headers.etag) };
  }
  const patch = (productId: string, id: string, body: Record<string, unknown>, etag?: string, as = token) =>
    h.request({ method: 'PATCH', url: `${rates(productId)}/${id}`, token: as, body, headers: etag === undefined ? {} : { 'if-match': etag } });
  const remove = (productId: string, id: string, etag?: string, as = token) =>
    h.request({ method: 'DELETE', url: `${rates(productId)}/${id}`, token: as, headers: etag === undefined ? {} : { 'if-match': etag } });
  const read = (productId: string, id: string, as = token) => h.request({ method: 'GET', url: `${rates(productId)}/${id}`, token: as });
  const trail = async () => (await h.database.db.selectFrom('audit_logs').select('_id').where('resource', '=', 'product-rates').execute()).length;
  const events = async () => (await h.database.db.selectFrom('outbox_events').select('_id').execute()).length;

  it('creates, reads, lists, changes and deletes a rate with ETags, answering as the document declares', async () => {
    const p = await product();
    const first = await create(p, { from: '2030-06-01', to: '2030-06-05', price: 120.5, min_stay: 2 });
    validateAnswer('POST', '/v1/products/{id}/rates', first);
    expect(first.statusCode).toBe(201);
    const rate = first.json();
    expect(rate).toMatchObject({ product_id: p, from: '2030-06-01', to: '2030-06-05', price: 120.5, min_stay: 2, max_stay: null, closed: false, closed_to_arrival: false });
    expect(first.headers.location).toBe(`http://api.test/v1/products/${p}/rates/${String(rate._id)}`);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"/);

    const got = await read(p, String(rate._id));
    validateAnswer('GET', '/v1/products/{id}/rates/{rate_id}', got);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe(etag);
    expect(got.json()).toEqual(rate);

    await created(p, { from: '2030-07-01', to: '2030-07-03', closed: true });
    const list = await h.request({ method: 'GET', url: `${rates(p)}?per_page=1`, token });
    validateAnswer('GET', '/v1/products/{id}/rates', list);
    expect(list.json()).toMatchObject({ total: 2, page: 1, per_page: 1, items: [{ _id: rate._id, from: '2030-06-01' }] });
    expect(list.headers['x-total-count']).toBe('2');
    const july = await h.request({ method: 'GET', url: `${rates(p)}?to=2030-07-03&fields=from,to`, token });
    expect(july.json().items).toEqual([{ _id: expect.any(String), from: '2030-07-01', to: '2030-07-03' }]);
    const sorted = await h.request({ method: 'GET', url: `${rates(p)}?sort=-from&where=${encodeURIComponent(JSON.stringify({ from: { $gte: '2030-01-01' } }))}`, token });
    expect(sorted.json().items.map((item: { from: string }) => item.from)).toEqual(['2030-07-01', '2030-06-01']);
    expectProblem(await h.request({ method: 'GET', url: `${rates(p)}?colour=red`, token }), 400, 'validation_failed');

    expectProblem(await patch(p, String(rate._id), { price: 99 }), 428, 'precondition_required');
    expectProblem(await patch(p, String(rate._id), { price: 99 }, '"stale"'), 412, 'precondition_failed');
    const changed = await patch(p, String(rate._id), { price: 99, max_stay: 7 }, etag);
    validateAnswer('PATCH', '/v1/products/{id}/rates/{rate_id}', changed);
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ price: 99, max_stay: 7, min_stay: 2, product_id: p });
    const newEtag = String(changed.headers.etag);
    expect(newEtag).not.toBe(etag);
    expectProblem(await patch(p, String(rate._id), { price: 98 }, etag), 412, 'precondition_failed');

    expectProblem(await remove(p, String(rate._id)), 428, 'precondition_required');
    expectProblem(await remove(p, String(rate._id), etag), 412, 'precondition_failed');
    const deleted = await remove(p, String(rate._id), newEtag);
    validateAnswer('DELETE', '/v1/products/{id}/rates/{rate_id}', deleted);
    expect(deleted.statusCode).toBe(204);
    expectProblem(await read(p, String(rate._id)), 404, 'not_found');
    expect((await h.request({ method: 'GET', url: rates(p), token })).json().total).toBe(1);
  });

  it('gives the rate to the product tenant and reads it back for pricing, sorted by from with booleans decoded', async () => {
    const p = await product();
    const later = await created(p, { from: '2030-09-10', to: '2030-09-20', price: null, closed_to_arrival: true, max_stay: 3 });
    const earlier = await created(p, { from: '2030-09-01', to: '2030-09-10', price: 80, closed: true, min_stay: 1 });
    const productRow = await h.database.db.selectFrom('products').select('tenant_id').where('_id', '=', p).executeTakeFirstOrThrow();
    const row = await h.database.db.selectFrom('product_rates').select(['tenant_id', 'product_id']).where('_id', '=', later.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ tenant_id: productRow.tenant_id, product_id: p });
    expect(await ratesOf(h.app.resources.queries(asSystem()), p)).toEqual([
      { id: earlier.id, from: '2030-09-01', to: '2030-09-10', price: 80, minStay: 1, maxStay: null, closed: true, closedToArrival: false },
      { id: later.id, from: '2030-09-10', to: '2030-09-20', price: null, minStay: null, maxStay: 3, closed: false, closedToArrival: true },
    ]);
    await remove(p, earlier.id, earlier.etag);
    expect((await ratesOf(h.app.resources.queries(asSystem()), p)).map((rate) => rate.id)).toEqual([later.id]);
  });

  it("answers 404 for another tenant's product, a deleted product and a rate of another product, changing nothing", async () => {
    const p = await product();
    const q = await product();
    const rate = await created(p, { from: '2030-06-01', to: '2030-06-05' });
    const [audits, outbox] = [await trail(), await events()];
    for (const res of [
      await h.request({ method: 'GET', url: rates(p), token: otherTenant }),
      await create(p, { from: '2031-01-01', to: '2031-01-02' }, otherTenant),
      await read(p, rate.id, otherTenant),
      await patch(p, rate.id, { price: 1 }, rate.etag, otherTenant),
      await remove(p, rate.id, rate.etag, otherTenant),
      // The rate exists, but not under this product: with the right ETag, and without any.
      await read(q, rate.id),
      await patch(q, rate.id, { price: 1 }, rate.etag),
      await patch(q, rate.id, { price: 1 }),
      await remove(q, rate.id, rate.etag),
      await remove(q, rate.id),
      await read(p, 'no-such-rate'),
      await h.request({ method: 'GET', url: rates('no-such-product'), token }),
      await create('no-such-product', { from: '2031-01-01', to: '2031-01-02' }),
    ])
      expectProblem(res, 404, 'not_found');
    expect([await trail(), await events()]).toEqual([audits, outbox]);
    expect((await read(p, rate.id)).headers.etag).toBe(rate.etag);

    const gone = await product();
    const kept = await created(gone, { from: '2030-06-01', to: '2030-06-05' });
    const productEtag = String((await h.request({ method: 'GET', url: `/v1/products/${gone}`, token })).headers.etag);
    expect((await h.request({ method: 'DELETE', url: `/v1/products/${gone}`, token, headers: { 'if-match': productEtag } })).statusCode).toBe(204);
    expectProblem(await h.request({ method: 'GET', url: rates(gone), token }), 404, 'not_found');
    expectProblem(await read(gone, kept.id), 404, 'not_found');
    expectProblem(await create(gone, { from: '2031-01-01', to: '2031-01-02' }), 404, 'not_found');
    expectProblem(await patch(gone, kept.id, { price: 1 }), 404, 'not_found');
    expectProblem(await remove(gone, kept.id, kept.etag), 404, 'not_found');
  });

  it('needs products:update to write and products:read to read', async () => {
    const p = await product();
    const rate = await created(p, { from: '2030-06-01', to: '2030-06-05' });
    expectProblem(await create(p, { from: '2030-07-01', to: '2030-07-05' }, readOnly), 403, 'insufficient_scope');
    expectProblem(await patch(p, rate.id, { price: 1 }, rate.etag, readOnly), 403, 'insufficient_scope');
    expectProblem(await remove(p, rate.id, rate.etag, readOnly), 403, 'insufficient_scope');
    expect((await read(p, rate.id, readOnly)).statusCode).toBe(200);
    expect((await h.request({ method: 'GET', url: rates(p), token: readOnly })).json().total).toBe(1);
    const listOnly = await h.bearer(await h.tenant('Lister'), ['products:list']);
    expectProblem(await h.request({ method: 'GET', url: rates(p), token: listOnly }), 403, 'insufficient_scope');
  });

  it('refuses each invalid rate with 400 naming the field, writing nothing', async () => {
    const p = await product();
    const yen = await product({ currency: 'JPY', price: 12000 });
    const [audits, outbox] = [await trail(), await events()];
    const refusals: [string, Record<string, unknown>, string, string?][] = [
      [p, { from: '2030-06-05', to: '2030-06-05' }, 'to'],
      [p, { from: '2030-06-05', to: '2030-06-01' }, 'to'],
      [p, { from: '2030-01-01', to: '2032-01-02' }, 'to'],
      [p, { from: '2028-02-29', to: '2030-03-01' }, 'to'],
      [p, { from: '2030-06-01', to: '2030-06-05', min_stay: 5, max_stay: 2 }, 'min_stay'],
      [p, { from: '2030-06-01', to: '2030-06-05', price: 10.005 }, 'price'],
      [yen, { from: '2030-06-01', to: '2030-06-05', price: 0.5 }, 'price'],
      [p, { from: '2030-06-01', to: '2030-06-05', colour: 'red' }, 'colour', 'is not a field of a rate'],
      [p, { from: '2030-06-01', to: '2030-06-05', product_id: p }, 'product_id', 'is set by the service and cannot be written'],
      [p, { from: '2030-06-01', to: '2030-06-05', _id: 'mine' }, '_id'],
      [p, { from: 'June 1st', to: '2030-06-05' }, 'from'],
      [p, { from: '2030-02-30', to: '2030-03-05' }, 'from'],
      [p, { to: '2030-06-05' }, 'from'],
      [p, { from: '2030-06-01', to: '2030-06-05', price: -1 }, 'price'],
    ];
    for (const [productId, body, field, message] of refusals) {
      const problem = expectProblem(await create(productId, body), 400, 'validation_failed');
      expect(errorFields(problem), JSON.stringify(body)).toContain(field);
      if (message) expect(problem.errors).toContainEqual({ field, message });
    }
    expect([await trail(), await events()]).toEqual([audits, outbox]);
    // The limits themselves are allowed: two calendar years to the day, whole yen, cents, equal stays.
    await created(p, { from: '2030-01-01', to: '2032-01-01', price: 10.05, min_stay: 3, max_stay: 3 });
    await created(yen, { from: '2028-02-29', to: '2030-02-28', price: 9800 });

    // A change is checked as the rate it makes.
    const q = await product();
    const rate = await created(q, { from: '2030-06-01', to: '2030-06-05', max_stay: 4 });
    expect(errorFields(expectProblem(await patch(q, rate.id, { to: '2030-05-30' }, rate.etag), 400, 'validation_failed'))).toEqual(['to']);
    expect(errorFields(expectProblem(await patch(q, rate.id, { min_stay: 5 }, rate.etag), 400, 'validation_failed'))).toEqual(['min_stay']);
    expect(errorFields(expectProblem(await patch(q, rate.id, { price: 1.001 }, rate.etag), 400, 'validation_failed'))).toEqual(['price']);
    expect(errorFields(expectProblem(await patch(q, rate.id, { product_id: p }, rate.etag), 400, 'validation_failed'))).toEqual(['product_id']);
    expect((await read(q, rate.id)).headers.etag).toBe(rate.etag);
  });

  it('refuses a rate sharing a date with another (409 rate_overlap naming it); touching ranges are fine', async () => {
    const p = await product();
    const early = await created(p, { from: '2030-06-01', to: '2030-06-05' });
    const late = await created(p, { from: '2030-06-05', to: '2030-06-09' });
    await created(p, { from: '2030-05-25', to: '2030-06-01' });
    const [audits, outbox] = [await trail(), await events()];
    const across = expectProblem(await create(p, { from: '2030-06-03', to: '2030-06-07' }), 409, 'rate_overlap');
    expect(across.rate_id).toBe(early.id);
    expect(expectProblem(await create(p, { from: '2030-06-08', to: '2030-06-10' }), 409, 'rate_overlap').rate_id).toBe(late.id);
    expect(expectProblem(await create(p, { from: '2030-06-04', to: '2030-06-05' }), 409, 'rate_overlap').rate_id).toBe(early.id);
    expect(expectProblem(await patch(p, late.id, { from: '2030-06-04' }, late.etag), 409, 'rate_overlap').rate_id).toBe(early.id);
    expect([await trail(), await events()]).toEqual([audits, outbox]);
    // A change that keeps the rate's own dates does not collide with itself.
    const moved = await patch(p, late.id, { to: '2030-06-12', price: 90 }, late.etag);
    expect(moved.statusCode, moved.body).toBe(200);
    // Another product's rates are another matter.
    await created(await product(), { from: '2030-06-03', to: '2030-06-07' });
    // A deleted rate no longer counts.
    expect((await remove(p, early.id, early.etag)).statusCode).toBe(204);
    expect(expectProblem(await create(p, { from: '2030-06-03', to: '2030-06-07' }), 409, 'rate_overlap').rate_id).toBe(late.id);
    await created(p, { from: '2030-06-01', to: '2030-06-05' });
  });

  it('audits a create and a delete, with their events', async () => {
    const p = await product();
    const rate = await created(p, { from: '2030-06-01', to: '2030-06-05', price: 70 });
    expect((await remove(p, rate.id, rate.etag)).statusCode).toBe(204);
    const trailOf = await h.request({ method: 'GET', url: `/v1/audit-logs?resource=product-rates&record_id=${rate.id}&sort=created_at`, token });
    expect(trailOf.statusCode, trailOf.body).toBe(200);
    const entries = trailOf.json().items as Record<string, unknown>[];
    expect(entries.map((entry) => entry.action)).toEqual(['create', 'delete']);
    expect(entries[0]?.new_values).toMatchObject({ product_id: p, from: '2030-06-01', price: 70 });
    expect(entries[1]?.old_values).toMatchObject({ product_id: p, to: '2030-06-05' });
    const types = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', rate.id).orderBy('created_at').execute();
    expect(types.map((row) => row.type)).toEqual(['product-rates.created', 'product-rates.deleted']);
  });

  it('gives exactly one of 20 parallel overlapping creates its dates', async () => {
    const p = await product();
    // Every range covers 2030-08-10; no two may both be stored.
    const bodies = Array.from({ length: 20 }, (_, i) => ({ from: `2030-08-${String(1 + (i % 9)).padStart(2, '0')}`, to: `2030-08-${String(11 + (i % 7)).padStart(2, '0')}`, price: 100 + i }));
    const answers = await Promise.all(bodies.map((body) => create(p, body)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    const winner = String(answers.find((answer) => answer.statusCode === 201)?.json()._id);
    for (const answer of answers.filter((a) => a.statusCode === 409)) expect(answer.json().rate_id).toBe(winner);
    expect((await h.database.db.selectFrom('product_rates').select('_id').where('product_id', '=', p).execute()).map((row) => row._id)).toEqual([winner]);
  });
});

/** Checks a real answer against the operation the document declares: its status, and its JSON body against the declared schema. */
function conformance(doc: OpenApiDocument): (method: string, path: string, res: LightMyRequestResponse) => void {
  const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  addFormats.default(ajv);
  const id = 'https://booking.example/openapi.json';
  ajv.addSchema({ $id: id, paths: doc.paths, components: doc.components });
  const segment = (name: string) => encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));
  return (method, path, res) => {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path}`).toBeDefined();
    const status = String(res.statusCode);
    expect(Object.keys(operation?.responses ?? {}), `${method} ${path} → ${status}`).toContain(status);
    if (res.body.length === 0) return;
    const validate = ajv.getSchema(`${id}#/paths/${segment(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`);
    if (!validate) throw new Error(`no schema for ${method} ${path} → ${status}`);
    expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
  };
}
