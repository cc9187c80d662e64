import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { errorFields, expectProblem } from '../../support/problem.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

/** Bodies with exactly one bad field: resource, field, bad value. */
const wrongValues: readonly [string, string, unknown][] = [
  ['products', 'name', 5],
  ['products', 'name', null],
  ['products', 'name', ['Loft']],
  ['products', 'name', { first: 'Loft' }],
  ['products', 'name', true],
  ['products', 'name', 'x'.repeat(201)],
  ['products', 'country', 'DEU'],
  ['products', 'total_items', 1.5],
  ['products', 'total_items', '3'],
  ['products', 'total_items', true],
  ['products', 'total_items', null],
  ['products', 'total_items', 1e20],
  ['products', 'total_items', -1],
  ['products', 'total_items', 1_000_001],
  ['products', 'is_published', 'true'],
  ['products', 'is_published', 1],
  ['products', 'is_published', null],
  ['products', 'status', 'closed'],
  ['products', 'status', 'ACTIVE'],
  ['service-charges', 'amount', '10'],
  ['service-charges', 'amount', -0.5],
  ['service-charges', 'amount', false],
  ['service-charges', 'amount', { $gt: 1 }],
  ['orders', 'currency', 'eur'],
  ['orders', 'total_amount', 'lots'],
  ['bookings', 'start_time', '2026-02-31T00:00:00Z'],
  ['bookings', 'start_time', '2026-02-31T10:00:00+01:00'],
  ['bookings', 'start_time', '2025-02-29T10:00:00Z'],
  ['bookings', 'start_time', '2026-04-31T10:00:00-05:00'],
  ['bookings', 'start_time', '2026-01-01T10:00:00'],
  ['bookings', 'start_time', '2026-01-01'],
  ['bookings', 'start_time', '2026-01-01 10:00:00Z'],
  ['bookings', 'start_time', '2026-01-01T24:00:00Z'],
  ['bookings', 'start_time', '2026-01-01T10:00:00+25:00'],
  ['bookings', 'start_time', 1_767_225_600],
  ['bookings', 'start_time', 'tomorrow'],
  ['bookings', 'status', 'bogus'],
  ['bookings', 'quantity', 0],
  ['bookings', 'product_id', ''],
  ['bookings', 'product_id', 42],
  ['webhooks', 'events', 'booking.created'],
  ['webhooks', 'events', [1]],
  ['webhooks', 'events', [null]],
  ['webhooks', 'events', Array.from({ length: 101 }, (_, i) => `e${i}`)],
  ['webhooks', 'url', 'ftp://example.com'],
  ['webhooks', 'active', 'yes'],
];

describe.each(dialects)('strict request bodies on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let productId: string;
  const bases: Record<string, () => Record<string, unknown>> = {};

  beforeAll(async () => {
    h = await createHarness(dialect, { env: { BODY_LIMIT_BYTES: '102400' } });
    const tenant = await h.tenant('Bodies');
    token = await h.bearer(
      tenant,
      ['products', 'bookings', 'orders', 'service-charges', 'webhooks'].flatMap((r) => crud(r)),
    );
    productId = (await h.request({ method: 'POST', url: '/v1/products/', token, body: product })).json()._id;
    const times = { start_time: '2026-05-01T10:00:00Z', end_time: '2026-05-02T10:00:00Z' };
    Object.assign(bases, {
      products: () => ({ ...product }),
      bookings: () => ({ product_id: productId, ...times }),
      orders: () => ({ product_id: productId, ...times }),
      'service-charges': () => ({ product_id: productId, amount: 10 }),
      webhooks: () => ({ url: 'https://hooks.example/x', events: ['booking.created'] }),
    });
  });
  afterAll(async () => {
    await h.close();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const post = (resource: string, body: unknown, headers?: Record<string, string>) => h.request({ method: 'POST', url: `/v1/${resource}/`, token, body, ...(headers ? { headers } : {}) });

  async function created(resource: string, body: Record<string, unknown>) {
    const response = await post(resource, body);
    expect(response.statusCode, response.body).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag), record: response.json() as Record<string, unknown> };
  }

  const patch = (resource: string, id: string, etag: string, body: unknown, headers: Record<string, string> = {}) =>
    h.request({ method: 'PATCH', url: `/v1/${resource}/${id}`, token, body, headers: { 'if-match': etag, ...headers } });

  it('refuses an unknown field, naming it', async () => {
    const problem = expectProblem(await post('products', { ...product, colour: 'red' }), 400, 'validation_failed');
    expect(errorFields(problem)).toEqual(['colour']);
  });

  it.each(['_id', 'tenant_id', 'created_at', 'updated_at', 'deleted_at', 'etag'])('refuses the server-owned %s on create and update', async (field) => {
    const value = field.endsWith('_at') ? '2026-01-01T00:00:00Z' : 'forged';
    const problem = expectProblem(await post('products', { ...product, [field]: value }), 400, 'validation_failed');
    expect(problem.errors).toEqual([{ field, message: 'is set by the service and cannot be written' }]);
    const { id, etag } = await created('products', product);
    expect(errorFields(expectProblem(await patch('products', id, etag, { [field]: value }), 400, 'validation_failed'))).toEqual([field]);
    expect(errorFields(expectProblem(await patch('products', id, etag, { city: 'Hamburg', [field]: value }), 400, 'validation_failed'))).toEqual([field]);
  });

  it('lists every problem of a body at once', async () => {
    const body = { _id: 'x', tenant_id: 'y', etag: '"z"', name: 7, total_items: 'many', colour: 'red' };
    const problem = expectProblem(await post('products', body), 400, 'validation_failed');
    expect(errorFields(problem).sort()).toEqual(['_id', 'address', 'city', 'colour', 'etag', 'name', 'tenant_id', 'total_items', 'zip_code']);
    for (const error of problem.errors ?? []) expect(error.message).toEqual(expect.any(String));
  });

  it.each(wrongValues)('%s: refuses %s = %j', async (resource, field, value) => {
    const body = { ...bases[resource]?.(), [field]: value };
    const problem = expectProblem(await post(resource, body), 400, 'validation_failed');
    expect(errorFields(problem)).toEqual([field]);
  });

  it('names every missing required field on create', async () => {
    expect(errorFields(expectProblem(await post('products', {}), 400, 'validation_failed')).sort()).toEqual(['address', 'city', 'name', 'total_items', 'zip_code']);
    expect(errorFields(expectProblem(await post('bookings', { product_id: productId }), 400, 'validation_failed')).sort()).toEqual(['end_time', 'start_time']);
  });

  it('normalises timestamps to UTC with milliseconds', async () => {
    const { record } = await created('bookings', { product_id: productId, start_time: '2026-01-31T13:00:00+01:00', end_time: '2026-02-01T00:00:00.5Z' });
    expect(record).toMatchObject({ start_time: '2026-01-31T12:00:00.000Z', end_time: '2026-02-01T00:00:00.500Z' });
  });

  it('refuses end_time at or before start_time, on create and on update', async () => {
    for (const end of ['2026-05-01T10:00:00Z', '2026-05-01T09:59:59.999Z', '2026-05-01T11:00:00+02:00']) {
      const problem = expectProblem(await post('bookings', { product_id: productId, start_time: '2026-05-01T10:00:00Z', end_time: end }), 400, 'validation_failed');
      expect(errorFields(problem)).toEqual(['end_time']);
    }
    const { id, etag } = await created('orders', bases.orders?.() ?? {});
    expect(errorFields(expectProblem(await patch('orders', id, etag, { end_time: '2026-04-30T00:00:00Z' }), 400, 'validation_failed'))).toEqual(['end_time']);
    expect(errorFields(expectProblem(await patch('orders', id, etag, { start_time: '2026-06-01T00:00:00Z' }), 400, 'validation_failed'))).toEqual(['end_time']);
    expect((await patch('orders', id, etag, { start_time: '2026-04-01T00:00:00Z' })).statusCode).toBe(200);
  });

  it('refuses changing an immutable field and an empty update', async () => {
    const { id, etag } = await created('bookings', bases.bookings?.() ?? {});
    const other = await created('products', product);
    expect(errorFields(expectProblem(await patch('bookings', id, etag, { product_id: other.id }), 400, 'validation_failed'))).toEqual(['product_id']);
    expect(errorFields(expectProblem(await patch('bookings', id, etag, {}), 400, 'validation_failed'))).toEqual(['body']);
    const read = await h.request({ method: 'GET', url: `/v1/bookings/${id}`, token });
    expect(read.json().product_id).toBe(productId);
    expect(read.headers.etag).toBe(etag);
  });

  it.each([
    ['truncated', '{"name": "Loft"'],
    ['single quotes', "{'name': 'Loft'}"],
    ['trailing comma', '{"name": "Loft",}'],
    ['two documents', '{"name":"a"}{"name":"b"}'],
    ['bare word', 'undefined'],
    ['NaN', '{"total_items": NaN}'],
    // JSON.parse would keep the last and drop the first unseen.
    ['a repeated member', '{"name": "Loft", "name": "Attic"}'],
    ['a repeated member spelt with an escape', '{"name": "Loft", "n\\u0061me": "Attic"}'],
    ['a repeated member in a nested object', '{"name": "Loft", "description": {"a": 1, "a": 2}}'],
  ])('answers malformed JSON (%s) with 400 malformed_json', async (_name, payload) => {
    expectProblem(await post('products', payload), 400, 'malformed_json');
    const { id, etag } = await created('products', product);
    expectProblem(await patch('products', id, etag, payload), 400, 'malformed_json');
  });

  /** A product body whose `name` holds `bytes` as they are, not as an escape. */
  const withNameBytes = (bytes: readonly number[]) => Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('b","address":"a","city":"c","zip_code":"1","total_items":1}')]);
  const sendBytes = (method: string, url: string, payload: Buffer, headers: Record<string, string> = {}) =>
    h.app.server.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, payload });

  // Decoded as text, each would silently become U+FFFD and be stored (audit finding 7).
  it.each([
    ['0xFF 0xFE', [0xff, 0xfe]],
    ['a lone continuation byte', [0x80]],
    ['a truncated three-byte sequence', [0xe2, 0x82]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('answers invalid UTF-8 (%s) with 400 malformed_json on create and update, storing nothing', async (_name, bytes) => {
    const before = await productCount();
    expect(expectProblem(await sendBytes('POST', '/v1/products/', withNameBytes(bytes)), 400, 'malformed_json').detail).toMatch(/UTF-8/);
    const { id, etag } = await created('products', product);
    expectProblem(await sendBytes('PATCH', `/v1/products/${id}`, withNameBytes(bytes), { 'if-match': etag }), 400, 'malformed_json');
    const read = await h.request({ method: 'GET', url: `/v1/products/${id}`, token });
    expect(read.json().name).toBe(product.name);
    expect(read.headers.etag).toBe(etag);
    expect(await productCount()).toBe(before + 1);
  });

  it('stores valid multi-byte UTF-8 as sent', async () => {
    const response = await sendBytes('POST', '/v1/products/', withNameBytes([...Buffer.from('€ü😀')]));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().name).toBe('a€ü😀b');
  });

  it.each([
    ['an array', '[{"name":"Loft"}]'],
    ['null', 'null'],
    ['a string', '"Loft"'],
    ['a number', '42'],
    ['true', 'true'],
  ])('refuses %s as a body', async (_name, payload) => {
    expect(errorFields(expectProblem(await post('products', payload), 400, 'validation_failed'))).toEqual(['body']);
  });

  it('refuses an empty JSON body', async () => {
    expectProblem(await post('products', ''), 400, 'validation_failed');
  });

  it.each([
    ['text/plain', JSON.stringify(product)],
    ['text/plain; charset=utf-8', JSON.stringify(product)],
    ['application/x-www-form-urlencoded', new URLSearchParams({ name: 'Loft' }).toString()],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nLoft\r\n--x--'],
    ['application/xml', '<product/>'],
    ['application/jsonp', JSON.stringify(product)],
  ])('answers %s with 415', async (type, payload) => {
    expectProblem(await post('products', payload, { 'content-type': type }), 415, 'unsupported_media_type');
    const { id, etag } = await created('products', product);
    expectProblem(await patch('products', id, etag, payload, { 'content-type': type }), 415, 'unsupported_media_type');
  });

  it.each(['application/json', 'text/plain', 'application/x-www-form-urlencoded'])('accepts a DELETE without content labelled %s', async (type) => {
    const { id, etag } = await created('products', product);
    const response = await h.app.server.inject({
      method: 'DELETE',
      url: `/v1/products/${id}`,
      headers: { authorization: `Bearer ${token}`, 'if-match': etag, 'content-type': type, 'content-length': '0' },
    });
    expect(response.statusCode).toBe(204);
  });

  it('refuses a DELETE with non-JSON content', async () => {
    const { id, etag } = await created('products', product);
    const response = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, body: 'please', headers: { 'if-match': etag, 'content-type': 'text/plain' } });
    expectProblem(response, 415, 'unsupported_media_type');
    expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).statusCode).toBe(200);
  });

  it('accepts application/json with a charset', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'Application/JSON']) {
      expect((await post('products', JSON.stringify(product), { 'content-type': type })).statusCode).toBe(201);
    }
  });

  const productCount = async () => Number((await h.request({ method: 'GET', url: '/v1/products', token })).json().total);

  it.each(['latin1', 'ISO-8859-1', 'utf-16', '"us-ascii"', 'utf8'])('answers application/json; charset=%s with 415: JSON is UTF-8', async (charset) => {
    const before = await productCount();
    const type = `application/json; charset=${charset}`;
    expect(expectProblem(await post('products', JSON.stringify(product), { 'content-type': type }), 415, 'unsupported_media_type').detail).toMatch(/UTF-8/);
    const { id, etag } = await created('products', product);
    expectProblem(await patch('products', id, etag, { name: 'Attic' }, { 'content-type': type }), 415, 'unsupported_media_type');
    expect(await productCount()).toBe(before + 1);
  });

  it.each(['gzip', 'br', 'deflate', 'zstd', 'x-custom', 'GZIP', 'identity, gzip'])('answers a body with Content-Encoding: %s with 415, writing nothing', async (coding) => {
    const before = await productCount();
    const response = await post('products', JSON.stringify(product), { 'content-encoding': coding });
    expect(expectProblem(response, 415, 'unsupported_media_type').detail).toMatch(/only unencoded bodies/);
    expect(response.headers['accept-encoding']).toBe('identity');
    const { id, etag } = await created('products', product);
    expectProblem(await patch('products', id, etag, { name: 'Attic' }, { 'content-encoding': coding }), 415, 'unsupported_media_type');
    expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).json().name).toBe(product.name);
    expect(await productCount()).toBe(before + 1);
  });

  it('answers a really gzipped body with 415', async () => {
    const response = await h.app.server.inject({
      method: 'POST',
      url: '/v1/products/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify(product)),
    });
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it.each(['identity', 'Identity', ''])('accepts a body with Content-Encoding: %s (none)', async (coding) => {
    expect((await post('products', JSON.stringify(product), { 'content-encoding': coding })).statusCode).toBe(201);
  });

  it('answers a body above 100 KiB with 413', async () => {
    const response = await post('products', { ...product, description: 'x'.repeat(101 * 1024) });
    expectProblem(response, 413, 'payload_too_large');
    expect((await post('products', { ...product, description: 'x'.repeat(5000), city: 'y'.repeat(100) })).statusCode).toBe(201);
  });

  it.each([
    ['__proto__', '{"name":"Loft","address":"a","city":"c","zip_code":"1","total_items":1,"__proto__":{"polluted":true}}'],
    ['nested __proto__', '{"name":"Loft","address":"a","city":"c","zip_code":"1","total_items":1,"description":{"__proto__":{"polluted":true}}}'],
    ['constructor.prototype', '{"name":"Loft","address":"a","city":"c","zip_code":"1","total_items":1,"constructor":{"prototype":{"polluted":true}}}'],
  ])('refuses %s in a body and pollutes nothing', async (_name, payload) => {
    expectProblem(await post('products', payload), 400, 'malformed_json');
    const { id, etag } = await created('products', product);
    expectProblem(await patch('products', id, etag, payload), 400, 'malformed_json');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses constructor as a plain field name', async () => {
    expect(errorFields(expectProblem(await post('products', { ...product, constructor: 'x' }), 400, 'validation_failed'))).toEqual(['constructor']);
  });
});
