import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { itemIds } from '../../support/list-fixtures.js';
import { errorFields, expectProblem } from '../../support/problem.js';

const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
const w = (filter: unknown): string => `where=${encodeURIComponent(typeof filter === 'string' ? filter : JSON.stringify(filter))}`;
const nested = (depth: number, leaf: string, key = '$and'): string => `${`{"${key}":[`.repeat(depth)}${leaf}${']}'.repeat(depth)}`;

/** Hostile list queries on /v1/products/: every one must be refused with a 400. */
const refusedQueries: readonly [string, string][] = [
  ['operator in field position', w({ $gt: 1 })],
  ['$eq in field position', w({ $eq: 'x' })],
  ['$regex in field position', w({ $regex: '.*' })],
  ['$where', w({ $where: 'sleep(1000)' })],
  ['$expr', w({ $expr: { $eq: ['$city', 'x'] } })],
  ['$function', w({ $function: { body: 'return true', args: [], lang: 'js' } })],
  ['$where in $or', w({ $or: [{ city: 'a' }, { $where: '1' }] })],
  ['$expr in $and/$or', w({ $and: [{ $or: [{ $expr: 1 }] }] })],
  ['$function in $not', w({ $not: { $function: {} } })],
  ['$where on a field', w({ city: { $where: '1' } })],
  ['$expr under a field $not', w({ city: { $not: { $expr: 1 } } })],
  ['operator as a value', w({ city: { $ne: { $where: '1' } } })],
  ['operator inside $in', w({ city: { $in: [{ $where: '1' }] } })],
  ['unknown $foo at the top', w({ $foo: 1 })],
  ['unknown $foo on a field', w({ city: { $foo: 'x' } })],
  ['$nor', w({ $nor: [{ city: 'a' }] })],
  ['nested document', w({ city: { name: 'x' } })],
  ['bracket operator in a parameter name', 'city[$ne]=x'],
  ['bracket where', 'where[city]=x'],
  ['array parameter', 'city[]=x'],
  ['repeated filter parameter', 'city=a&city=b'],
  ['repeated where', `${w({ city: 'a' })}&${w({ city: 'b' })}`],
  ['repeated sort', 'sort=name&sort=city'],
  ['1000-deep $and', w(nested(1000, '{"city":"x"}'))],
  ['1000-deep $not', w(`${'{"$not":'.repeat(1000)}{"city":"x"}${'}'.repeat(1000)}`)],
  ['9-deep $or', w(nested(9, '{"city":"x"}', '$or'))],
  ['10 000-item $in', w({ city: { $in: Array.from({ length: 10_000 }, (_, i) => `c${i}`) } })],
  ['101-item $in', w({ total_items: { $in: Array.from({ length: 101 }, (_, i) => i) } })],
  ['10 000-item __in', `city__in=${Array.from({ length: 10_000 }, (_, i) => `c${i}`).join(',')}`],
  ['101 conditions', w({ $or: Array.from({ length: 101 }, (_, i) => ({ total_items: i })) })],
  ['malformed JSON', w('{"city": "Berlin"')],
  ['single quotes', w("{'city': 'Berlin'}")],
  ['JSON array', w([{ city: 'Berlin' }])],
  ['JSON string', w('"Berlin"')],
  ['JSON null', w('null')],
  ['trailing garbage', w('{"city":"Berlin"} OR 1=1')],
  ['SQL in a where field name', w({ "name' OR '1'='1": 'x' })],
  ['SQL comment in a field name', w({ 'city; DROP TABLE products; --': 'x' })],
  ['quoted identifier', w({ '"city"': 'x' })],
  ['SQL in a parameter name', `${encodeURIComponent("city' OR '1'='1")}=x`],
  ['SQL in sort', `sort=${encodeURIComponent('name; DROP TABLE products')}`],
  ['SQL in sort direction', `sort=${encodeURIComponent('name DESC, (SELECT 1)')}`],
  ['SQL in fields', `fields=${encodeURIComponent('name FROM products --')}`],
  ['__proto__ in where', w('{"__proto__":{"polluted":true}}')],
  ['__proto__ under a field', w('{"city":{"__proto__":{"polluted":true}}}')],
  ['constructor.prototype in where', w({ constructor: { prototype: { polluted: true } } })],
  ['__proto__ query parameter', '__proto__=x'],
  ['__proto__ bracket parameter', '__proto__[polluted]=1'],
  ['constructor bracket parameter', 'constructor[prototype][polluted]=1'],
  ['toString as a field', w({ toString: 'x' })],
  ['hasOwnProperty as a field', 'hasOwnProperty=x'],
  ['type confusion: number for a string', w({ city: 1 })],
  ['type confusion: string for an integer', w({ total_items: '1 OR 1=1' })],
  ['type confusion: object for a boolean', w({ is_published: { $eq: { $gt: '' } } })],
  ['huge page', 'page=100000000000000000000000000000'],
  ['regex with a backreference', w({ name: { $regex: '(a)\\1' } })],
  ['regex with lookahead', w({ name: { $regex: '(?=a)' } })],
  ['regex with unknown options', w({ name: { $regex: 'a', $options: 'is' } })],
  ['NUL in a where value', w({ city: 'Ber\u0000lin' })],
  ['NUL in a parameter value', 'city=Ber%00lin'],
  ['NUL in a regex', w({ name: { $regex: 'a\u0000' } })],
  ['NUL in a regex parameter', 'name__regex=a%00'],
  ['a truncated percent-escape', 'city=%E0%A4%A'],
  ['a lone percent sign', 'city=100%'],
  ['an escaped lone surrogate', 'city=%ED%A0%80'],
  ['a badly encoded parameter name', '%E0=x'],
];

describe.each(dialects)('injection through the list API on %s', (dialect) => {
  let h: Harness;
  let token: string;
  const statuses: number[] = [];

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('Injection');
    token = await h.bearer(tenant, crud('products'));
  });
  afterAll(async () => {
    await h.close();
    expect(statuses.length).toBeGreaterThan(refusedQueries.length);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  async function request(options: Parameters<Harness['request']>[0]) {
    const response = await h.request({ token, ...options });
    statuses.push(response.statusCode);
    return response;
  }

  it.each(refusedQueries)('refuses %s with 400', async (_name, query) => {
    expectProblem(await request({ method: 'GET', url: `/v1/products/?${query}` }), 400, 'validation_failed');
  });

  it('treats SQL in values as data: it matches only itself', async () => {
    const names = ["x' OR '1'='1", 'x"; DROP TABLE products; --', "Robert'); DELETE FROM products WHERE ('1'='1", '%', '_', '\\'];
    const ids = new Map<string, string>();
    for (const name of [...names, 'x', 'plain']) {
      const created = await request({ method: 'POST', url: '/v1/products/', body: { name, address: "1' OR 1=1 --", city: "Berlin' --", zip_code: '1', total_items: 1 } });
      expect(created.statusCode).toBe(201);
      expect(created.json().name).toBe(name);
      ids.set(name, created.json()._id);
    }
    for (const name of names) {
      const byParameter = await request({ method: 'GET', url: `/v1/products/?name=${encodeURIComponent(name)}` });
      expect(itemIds(byParameter.json())).toEqual([ids.get(name)]);
      const byWhere = await request({ method: 'GET', url: `/v1/products/?${w({ name })}` });
      expect(itemIds(byWhere.json())).toEqual([ids.get(name)]);
      const byIn = await request({ method: 'GET', url: `/v1/products/?name__in=${encodeURIComponent(name)}` });
      expect(byIn.json().total).toBe(name.includes(',') ? 0 : 1);
    }
    expect((await request({ method: 'GET', url: `/v1/products/?${w({ name: 'x' })}` })).json().total).toBe(1);
    expect((await request({ method: 'GET', url: `/v1/products/?${w({ city: "Berlin' OR '1'='1" })}` })).json().total).toBe(0);
    // Every product (the other cases here add their own), as no name is that text.
    const everything = (await request({ method: 'GET', url: '/v1/products/?per_page=1' })).json().total as number;
    expect(everything).toBeGreaterThanOrEqual(ids.size);
    expect((await request({ method: 'GET', url: `/v1/products/?${w({ name: { $ne: "' OR 1=1 --" } })}&per_page=100` })).json().total).toBe(everything);
    // LIKE wildcards are not wildcards in equality.
    expect(itemIds((await request({ method: 'GET', url: '/v1/products/?name=%25' })).json())).toEqual([ids.get('%')]);
    const all = await request({ method: 'GET', url: '/v1/products/?per_page=100' });
    expect(all.json().total).toBe(everything);
  });

  it('reads an id with SQL in it as an unknown id', async () => {
    for (const id of ["1' OR '1'='1", '1; DROP TABLE products', '%', '*', '\u0000', 'a\u0001b']) {
      const url = `/v1/products/${encodeURIComponent(id)}`;
      expectProblem(await request({ method: 'GET', url }), 404, 'not_found');
      expectProblem(await request({ method: 'PATCH', url, body: { city: 'x' }, headers: { 'if-match': '"x"' } }), 404, 'not_found');
      expectProblem(await request({ method: 'DELETE', url, headers: { 'if-match': '"x"' } }), 404, 'not_found');
    }
  });

  it('answers malformed and over-long record paths with problem documents', async () => {
    for (const url of ['/v1/products/%E0%A4%A', '/v1/products/%ED%A0%80', '/v1/products/%']) {
      const response = await request({ method: 'GET', url });
      expect(errorFields(expectProblem(response, 400, 'validation_failed'))).toEqual(['path']);
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    }
    const long = await request({ method: 'DELETE', url: `/v1/products/${'a'.repeat(300)}`, headers: { 'if-match': '"x"' } });
    expectProblem(long, 404, 'not_found');
  });

  it('names the badly encoded query parameters, on lists and on every other route', async () => {
    const list = await request({ method: 'GET', url: '/v1/products/?city=Lisboa&name=%E0%A4%A&%ZZ=1&sort=name' });
    expect(expectProblem(list, 400, 'validation_failed').errors).toEqual([
      { field: 'name', message: 'invalid percent-encoding' },
      { field: 'query', message: 'invalid percent-encoding' },
    ]);
    // Before authentication, as a badly encoded path is: the request is not understood at all.
    const anonymous = await h.request({ method: 'GET', url: '/v1/products/?city=%' });
    expect(errorFields(expectProblem(anonymous, 400, 'validation_failed'))).toEqual(['city']);
    const good = await request({ method: 'GET', url: '/v1/products/?city=S%C3%A3o+Paulo%20Sul' });
    expect(good.statusCode).toBe(200);
    // The token endpoint answers in RFC 6749's words, before it reads the form (else: unsupported_grant_type).
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password' } as const;
    expect((await h.request({ ...form, url: '/v1/auth/token?x=%E0' })).json()).toMatchObject({ error: 'invalid_request' });
    expect((await h.request({ ...form, url: '/v1/auth/token?x=%C3%A0' })).json()).toMatchObject({ error: 'unsupported_grant_type' });
    // So does a form field that is not validly encoded: a malformed body, not a mangled client id, grant or scope.
    for (const body of ['grant_type=client_credentials&client_id=%E0%A4%A', 'grant_type=%E0%A4%A', 'grant_type=client_credentials&scope=products%3Alist%ZZ']) {
      const refused = await h.request({ ...form, url: '/v1/auth/token', body });
      expect(refused.statusCode, body).toBe(400);
      expect(refused.json(), body).toMatchObject({ error: 'invalid_request' });
    }
  });

  it.each([
    ['__proto__ at the top', '{"__proto__":{"polluted":true},"name":"p","address":"a","city":"c","zip_code":"1","total_items":1}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}},"name":"p","address":"a","city":"c","zip_code":"1","total_items":1}'],
    ['nested __proto__', '{"name":"p","address":"a","city":"c","zip_code":"1","total_items":1,"description":{"__proto__":{"polluted":true}}}'],
  ])('refuses a body with %s', async (_name, body) => {
    const response = await request({ method: 'POST', url: '/v1/products/', body });
    expect(response.statusCode).toBe(400);
    expect(['malformed_json', 'validation_failed']).toContain(response.json().code);
  });

  it.each([
    ['NUL', '"a\\u0000b"'],
    ['a lone high surrogate', '"a\\ud800b"'],
    ['a lone low surrogate', '"\\udc00"'],
    ['reversed surrogates', '"\\ude00\\ud83d"'],
  ])('refuses %s in a stored string', async (_name, json) => {
    const response = await request({ method: 'POST', url: '/v1/products/', body: `{"name":${json},"address":"a","city":"c","zip_code":"1","total_items":1}` });
    expect(expectProblem(response, 400, 'validation_failed').errors).toEqual([{ field: 'name', message: expect.any(String) }]);
  });

  it('stores characters outside the BMP (surrogate pairs) unchanged', async () => {
    const name = 'Loft \u{1F600} Ünïcødé';
    const response = await request({ method: 'POST', url: '/v1/products/', body: { name, address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
    expect(response.statusCode).toBe(201);
    expect((await request({ method: 'GET', url: `/v1/products/${response.json()._id}` })).json().name).toBe(name);
    expect(itemIds((await request({ method: 'GET', url: `/v1/products/?name=${encodeURIComponent(name)}` })).json())).toEqual([response.json()._id]);
  });
});
