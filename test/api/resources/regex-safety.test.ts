import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { itemIds } from '../../support/list-fixtures.js';
import { expectNoLeak, expectProblem } from '../../support/problem.js';
import { createTimeoutHarness } from '../../support/timeout-harness.js';
import type { TimeoutHarness } from '../../support/timeout-harness.js';

/** Generous bound for one list request, however hostile its pattern. */
const BOUND_MS = 5000;
const longName = `${'a'.repeat(30_000)}!`;
const w = (filter: unknown): string => `where=${encodeURIComponent(JSON.stringify(filter))}`;

/** Patterns that backtrack catastrophically in a backtracking engine, and what they match here. */
const evilPatterns: readonly [string, readonly string[]][] = [
  ['(a+)+$', ['Casa']],
  ['(a|aa)+$', ['Casa']],
  ['^(a|aa)+$', []],
  ['(.*a){20}', ['long']],
  ['(a*)*b', []],
  ['(x+x+)+y', []],
  ['(.*){255}', ['long', 'Casa', 'Loft']],
];

describe.each(dialects)('$regex cannot hang the service on %s', (dialect) => {
  let h: Harness;
  let token: string;
  const labels = new Map<string, string>();
  const statuses: number[] = [];

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('Regex');
    token = await h.bearer(tenant, crud('products'));
    for (const name of ['long', 'Casa', 'Loft']) {
      const created = await h.request({ method: 'POST', url: '/v1/products/', token, body: { name, address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
      labels.set(created.json()._id, name);
    }
    // Longer than the API allows (200): written directly, as an old or imported row might be.
    const id = [...labels].find(([, name]) => name === 'long')?.[0] ?? '';
    await h.database.db.updateTable('products').set({ name: longName }).where('_id', '=', id).execute();
  });
  afterAll(async () => {
    await h.close();
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
  });

  async function timed(url: string) {
    const started = performance.now();
    const response = await h.request({ method: 'GET', url, token });
    statuses.push(response.statusCode);
    return { response, elapsed: performance.now() - started };
  }

  it.each(evilPatterns)('%s answers quickly and correctly', async (pattern, expected) => {
    for (const url of [`/v1/products/?${w({ name: { $regex: pattern } })}`, `/v1/products/?name__regex=${encodeURIComponent(pattern)}`]) {
      const { response, elapsed } = await timed(url);
      expect(elapsed).toBeLessThan(BOUND_MS);
      expect(response.statusCode, response.body).toBe(200);
      expect(
        itemIds(response.json())
          .map((id) => labels.get(id))
          .sort(),
      ).toEqual([...expected].sort());
    }
    const { response, elapsed } = await timed(`/v1/products/?${w({ name: { $regex: pattern, $options: 'i' } })}`);
    expect(elapsed).toBeLessThan(BOUND_MS);
    expect(response.statusCode).toBe(200);
  });

  it('answers several hostile requests at once within the bound', async () => {
    const started = performance.now();
    const responses = await Promise.all(evilPatterns.map(([pattern]) => h.request({ method: 'GET', url: `/v1/products/?${w({ name: { $regex: pattern, $options: 'i' } })}`, token })));
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    for (const response of responses) {
      statuses.push(response.statusCode);
      expect(response.statusCode).toBe(200);
      expectNoLeak(response);
    }
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['lookahead', '(?=a)a'],
    ['lookbehind', '(?<=a)b'],
    ['a possessive quantifier', 'a++'],
    ['an atomic group', '(?>a+)b'],
    ['a repeat count above 255', 'a{1000}'],
    ['an overlong pattern', 'a'.repeat(257)],
    ['a syntax error', '(a'],
  ])('refuses %s with 400', async (_name, pattern) => {
    const { response, elapsed } = await timed(`/v1/products/?${w({ name: { $regex: pattern } })}`);
    expect(elapsed).toBeLessThan(BOUND_MS);
    expectProblem(response, 400, 'validation_failed');
  });
});

describe('a statement timeout on PostgreSQL answers 503', () => {
  let t: TimeoutHarness;

  beforeAll(async () => {
    t = await createTimeoutHarness(100, crud('products'));
    // 2 000 rows of 30 000 characters. The pattern below never matches, so both the page
    // query and the count scan every row (~350 ms in PostgreSQL's engine), well past the
    // 100 ms timeout. (A pattern that is merely slow to compile is not enough: PostgreSQL
    // caches compiled regexes, and a page query can stop after 25 matches.)
    await sql`
      insert into products (_id, tenant_id, created_at, updated_at, name, address, city, zip_code, total_items, status, is_published, etag)
      select 'slow-' || g, ${t.tenantId}, now(), now(), repeat('a', 30000) || '!', 'a', 'c', '1', 1, 'active', false, '"seed"'
      from generate_series(1, 2000) g`.execute(t.admin.db);
  });
  afterAll(() => t.close());

  it('cancels a pathological query and answers a clean 503 problem', async () => {
    const started = performance.now();
    const response = await t.get(`/v1/products/?${w({ name: { $regex: '(\\w{60}){3}z' } })}`);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
    const problem = expectProblem(response, 503, 'service_unavailable');
    expect(problem.errors).toBeUndefined();
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).not.toMatch(/statement|cancel|57014/i);
  });

  it('keeps serving quick queries on the same pool afterwards', async () => {
    const response = await t.get('/v1/products/?_id=slow-1&fields=city');
    expect(response.statusCode).toBe(200);
    expect(response.json().items).toEqual([{ _id: 'slow-1', city: 'c' }]);
  });
});
