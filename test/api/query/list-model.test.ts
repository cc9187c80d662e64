/**
 * Lists against a brute-force model: random `where` filters, query-parameter filters,
 * sorts, field selections and pages over seeded records (nulls, ties, case and accent
 * variants, code points above the BMP, float sums, timestamps in other zones, soft-deleted
 * records and a sibling tenant's records) must answer exactly what evaluating the request
 * in memory gives (test/api/query/list-model.ts), on both databases.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import type { FieldType, ResourceDef } from '../../../src/registry/types.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { steppingClock } from '../../support/stepping-clock.js';
import { expectedAnswer } from './list-model.js';
import type { Doc, FieldTypes, ListRequest } from './list-model.js';

const runs = Number(process.env['LIST_MODEL_RUNS'] ?? 250);
const seed = Number(process.env['LIST_MODEL_SEED'] ?? 20261129);

/** Values the seeded records draw from: collisions, ties and the orderings that differ between collations. */
const productPools = {
  name: ['Alpha', 'alpha', 'ALPHA', 'beta', 'Beta loft', 'Éclair', 'éclair', 'zeta', '10', '9', 'a_b', 'a%b', 'x\ny', '\u{1F600} smile', '\uFF01 bang', 'naïve'],
  address: ['Main St 1', 'main st 1', 'Ring 2'],
  city: ['Berlin', 'berlin', 'Paris', 'München', 'Zürich', 'Aachen'],
  zip_code: ['10115', '0100', '9', '10115a'],
  country: [null, 'DE', 'FR', 'AT'],
  total_items: [0, 1, 2, 5, 10, 999_999, 1_000_000],
  status: ['active', 'maintenance', 'retired'],
  time_zone: ['UTC', 'Europe/Berlin', 'America/New_York'],
  is_published: [true, false],
} as const;
const chargePools = {
  name: [null, 'Cleaning', 'cleaning', 'Towels', 'Ümlaut fee', 'towels '],
  // Amounts no finer than their currency's cents (docs/selling.md "Money"): 0.1 + 0.2 is refused now.
  amount: [0, 0.1, 0.2, 0.3, 0.35, 1, 1.5, 2, 1e9, 999_999_999.99],
  currency: ['EUR', 'USD', 'GBP'],
} as const;

/** Extra filter values per type that no record holds (or that sit between held ones). */
const strangers: Readonly<Record<FieldType, readonly unknown[]>> = {
  string: ['', 'zzz', 'Berlin ', 'a', 'ä'],
  reference: ['', 'no-such-id'],
  integer: [-1, 3, 2_147_483_647],
  number: [0.15, -0.5, 0.30000000000000004, 1_000_000_001],
  boolean: [],
  timestamp: ['1999-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'],
  string_list: [],
  object: [],
};

/** Patterns RE2 and JavaScript read alike (no classes that fold or differ outside ASCII). */
const patterns = ['^A', 'a', 'ALPHA', '^[a-z]+$', 'l.h', 'x.y', '\\d', '^\\d+$', 'é', '^$', 'n$', '[0-9]{2}', '(?:lpha|eta)', 'Ber|Par', '\\s', '^\\S+$', '%', '_', '\u{1F600}'];
const asciiPattern = (pattern: string): boolean => /^[\x20-\x7e]*$/.test(pattern);

const byType: Readonly<Record<FieldType, readonly string[]>> = {
  string: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex'],
  reference: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex'],
  integer: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'],
  number: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'],
  timestamp: ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'],
  boolean: ['$eq', '$ne', '$exists'],
  string_list: [],
  object: [],
};

function listable(resource: ResourceDef, flag: 'filterable' | 'sortable'): FieldTypes {
  const entries = Object.entries(resource.fields).filter(([, def]) => def[flag] === true && def.sensitive !== true && def.writeOnly !== true && def.computed !== true);
  return Object.fromEntries(entries.map(([name, def]) => [name, def.type]));
}

/** The same instant written with a +01:00 offset. */
function inPlusOne(iso: string): string {
  return `${new Date(Date.parse(iso) + 3_600_000).toISOString().slice(0, -1)}+01:00`;
}

/** Every value of a field the filters draw from: held ones, neighbours and strangers. */
function valuePool(type: FieldType, field: string, docs: readonly Doc[]): unknown[] {
  const held = [...new Set(docs.map((doc) => doc[field]))].filter((value) => value !== undefined);
  if (type !== 'timestamp') return [...held, ...strangers[type]];
  const instants = held.filter((value): value is string => typeof value === 'string');
  const near = instants.flatMap((iso) => [iso, inPlusOne(iso), new Date(Date.parse(iso) + 1).toISOString(), new Date(Date.parse(iso) - 1).toISOString()]);
  return [...near, ...strangers.timestamp];
}

interface Model {
  readonly path: string;
  readonly filterable: FieldTypes;
  readonly sortable: readonly string[];
  readonly readable: readonly string[];
  readonly pools: Readonly<Record<string, readonly unknown[]>>;
}

function condition(type: FieldType, pool: readonly unknown[]): fc.Arbitrary<unknown> {
  const value = fc.constantFrom(...pool);
  const scalar = fc.constantFrom(...pool.filter((item) => item !== null));
  const op = fc.constantFrom(...byType[type]);
  return op.chain((name): fc.Arbitrary<unknown> => {
    switch (name) {
      case '$eq':
        return fc.oneof(
          value,
          value.map((v) => ({ $eq: v })),
        );
      case '$ne':
        return value.map((v) => ({ $ne: v }));
      case '$in':
      case '$nin':
        return fc.array(scalar, { maxLength: 4 }).map((list) => ({ [name]: list }));
      case '$exists':
        return fc.boolean().map((flag) => ({ $exists: flag }));
      case '$regex':
        return fc.constantFrom(...patterns).chain((pattern) => (asciiPattern(pattern) ? fc.constantFrom({ $regex: pattern }, { $regex: pattern, $options: 'i' }) : fc.constant({ $regex: pattern })));
      default:
        return scalar.map((v) => ({ [name]: v }));
    }
  });
}

/** A field condition, sometimes two operators at once or under a field-level `$not`. */
function fieldCondition(type: FieldType, pool: readonly unknown[]): fc.Arbitrary<unknown> {
  const one = condition(type, pool);
  const operators = one.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c));
  return fc.oneof(
    { weight: 4, arbitrary: one },
    { weight: 1, arbitrary: fc.tuple(operators, operators).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 1, arbitrary: operators.map((c) => ({ $not: c })) },
  );
}

function whereFilter(model: Model): fc.Arbitrary<unknown> {
  const fields = Object.entries(model.filterable);
  const leaf = fc.constantFrom(...fields).chain(([field, type]) => fieldCondition(type, model.pools[field] ?? []).map((c) => ({ [field]: c })));
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 3, arbitrary: leaf },
      { weight: 1, arbitrary: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((children) => ({ $and: children })) },
      { weight: 1, arbitrary: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((children) => ({ $or: children })) },
      { weight: 1, arbitrary: tie('tree').map((child) => ({ $not: child })) },
      { weight: 1, arbitrary: fc.tuple(leaf, leaf).map(([a, b]) => ({ ...b, ...a })) },
    ),
  }));
  return tree;
}

const textOf = (value: unknown): string => String(value);

/** `field=v` and `field__op=v` parameters, each name at most once. */
function queryFilters(model: Model): fc.Arbitrary<Record<string, string>> {
  const entry = fc.constantFrom(...Object.entries(model.filterable)).chain(([field, type]) => {
    const pool = (model.pools[field] ?? []).filter((value) => value !== null && !textOf(value).includes(','));
    const value = fc.constantFrom(...pool).map(textOf);
    const ops = byType[type].map((op) => op.slice(1));
    return fc.constantFrom(...ops).chain((op): fc.Arbitrary<[string, string]> => {
      if (op === 'eq') return value.map((v) => [field, v]);
      // An empty item is refused (`a,,b` is a typo, not a filter for "").
      if (op === 'in' || op === 'nin') return fc.array(value.filter(Boolean), { minLength: 1, maxLength: 3 }).map((list) => [`${field}__${op}`, list.join(',')]);
      if (op === 'exists') return fc.boolean().map((flag) => [`${field}__exists`, String(flag)]);
      if (op === 'regex') return fc.constantFrom(...patterns).map((pattern) => [`${field}__regex`, pattern]);
      return value.map((v) => [`${field}__${op}`, v]);
    });
  });
  return fc.uniqueArray(entry, { maxLength: 3, selector: ([name]) => name }).map((entries) => Object.fromEntries(entries));
}

function listRequest(model: Model): fc.Arbitrary<ListRequest> {
  const sort = fc.shuffledSubarray([...model.sortable], { maxLength: 3 }).chain((fields) => fc.tuple(...fields.map((field) => fc.boolean().map((descending) => ({ field, descending })))));
  const paging = { fields: fc.subarray([...model.readable], { minLength: 1 }), page: fc.integer({ min: 1, max: 4 }), perPage: fc.integer({ min: 1, max: 25 }) };
  const filtered = fc.record({ where: whereFilter(model), params: queryFilters(model), sort, ...paging }, { requiredKeys: ['params', 'page', 'perPage'] });
  // A third of the requests filter nothing, so that sorting and paging are judged on every record.
  const unfiltered = fc.record({ params: fc.constant({}), sort, ...paging }, { requiredKeys: ['params', 'sort', 'page', 'perPage'] });
  return fc.oneof({ weight: 2, arbitrary: filtered }, { weight: 1, arbitrary: unfiltered });
}

function url(model: Model, request: ListRequest): string {
  const query = new URLSearchParams(request.params);
  if (request.where !== undefined) query.set('where', JSON.stringify(request.where));
  if (request.sort?.length) query.set('sort', request.sort.map(({ field, descending }) => `${descending ? '-' : ''}${field}`).join(','));
  if (request.fields) query.set('fields', request.fields.join(','));
  query.set('page', String(request.page));
  query.set('per_page', String(request.perPage));
  return `${model.path}?${query.toString()}`;
}

describe.each(dialects)('lists answer as the brute-force model on %s', (dialect) => {
  let h: Harness;
  let token: string;
  const live: Record<string, Doc[]> = { products: [], 'service-charges': [] };

  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    h.request({ method, url: path, token, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

  async function create(resource: string, body: Record<string, unknown>): Promise<Doc> {
    const response = await send('POST', `/v1/${resource}/`, body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json<Doc>();
  }

  beforeAll(async () => {
    h = await createHarness(dialect, { clock: steppingClock() });
    const capabilities = [...crud('products'), ...crud('service-charges')];
    const tenant = await h.tenant('Model');
    const sibling = await h.tenant('Sibling');
    // The sibling's records are never listed to the caller.
    token = await h.bearer(sibling, capabilities);
    const foreign = await create('products', { name: 'Alpha', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 1 });
    await create('service-charges', { product_id: foreign._id, amount: 1 });

    token = await h.bearer(tenant, capabilities);
    const pick = <T>(values: readonly T[], i: number, step: number): T => values[(i * step) % values.length] as T;
    const products: Doc[] = [];
    for (let i = 0; i < 26; i += 1) {
      const country = pick(productPools.country, i, 3);
      products.push(
        await create('products', {
          name: pick(productPools.name, i, 5),
          address: pick(productPools.address, i, 1),
          city: pick(productPools.city, i, 5),
          zip_code: pick(productPools.zip_code, i, 3),
          ...(country === null ? {} : { country }),
          total_items: pick(productPools.total_items, i, 3),
          status: pick(productPools.status, i, 1),
          time_zone: pick(productPools.time_zone, i, 2),
          is_published: pick(productPools.is_published, i, 1),
          // A product's charges share its currency (docs/selling.md "Money"): product i%3 takes the currency its charges pick.
          currency: pick(chargePools.currency, i, 1),
        }),
      );
    }
    const charges: Doc[] = [];
    for (let i = 0; i < 24; i += 1) {
      const name = pick(chargePools.name, i, 5);
      charges.push(
        await create('service-charges', {
          product_id: (products[i % 3] as Doc)._id,
          amount: pick(chargePools.amount, i, 3),
          currency: pick(chargePools.currency, i, 1),
          ...(name === null ? {} : { name }),
        }),
      );
    }
    // Updates give `updated_at` its own order; deletes leave soft-deleted rows behind.
    for (const [resource, docs, change] of [
      ['products', products, { total_items: 7, name: 'alpha' }],
      ['service-charges', charges, { amount: 0.3, name: null }],
    ] as const) {
      for (const index of [5, 9, 13]) {
        const doc = docs[index] as Doc;
        const etag = (await send('GET', `/v1/${resource}/${doc._id}`)).headers.etag as string;
        const patched = await send('PATCH', `/v1/${resource}/${doc._id}`, change, { 'if-match': etag });
        expect(patched.statusCode, patched.body).toBe(200);
        docs[index] = patched.json<Doc>();
      }
      for (const index of [11, 17, 23]) {
        const doc = docs[index] as Doc;
        const etag = (await send('GET', `/v1/${resource}/${doc._id}`)).headers.etag as string;
        expect((await send('DELETE', `/v1/${resource}/${doc._id}`, undefined, { 'if-match': etag })).statusCode).toBe(204);
      }
      live[resource] = docs.filter((_doc, index) => ![11, 17, 23].includes(index));
    }
  });
  afterAll(() => h.close());

  it.each(['products', 'service-charges'] as const)('%s', async (name) => {
    const resource = getResource(name);
    const docs = live[name] ?? [];
    const filterable = listable(resource, 'filterable');
    const model: Model = {
      path: `/v1/${name}/`,
      filterable,
      sortable: Object.keys(listable(resource, 'sortable')),
      readable: Object.keys(docs[0] ?? {}),
      pools: Object.fromEntries(Object.entries(filterable).map(([field, type]) => [field, valuePool(type, field, docs)])),
    };
    await fc.assert(
      fc.asyncProperty(listRequest(model), async (request) => {
        const path = url(model, request);
        const response = await send('GET', path);
        expect(response.statusCode, `${path}\n${response.body}`).toBe(200);
        const expected = expectedAnswer(filterable, docs, request);
        const body = response.json<{ items: unknown[]; total: number; page: number; per_page: number }>();
        expect({ path, total: body.total, items: body.items }).toEqual({ path, total: expected.total, items: expected.items });
        expect(response.headers['x-total-count']).toBe(String(expected.total));
        expect(response.headers['x-total-pages']).toBe(String(Math.max(1, Math.ceil(expected.total / request.perPage))));
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });
});
