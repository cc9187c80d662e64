import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../../src/actions/capabilities.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';
import { minimalBody, patchBody, productBody } from '../../support/resource-bodies.js';

/*
 * Tenant isolation for every operation the OpenAPI document publishes on a record, not only
 * the CRUD routes `isolation.test.ts` covers: each operation with an `{id}` in its path is
 * called by a client of tenant B, holding every capability, on a record of its sibling A.
 * Every one must answer 404 and leave A's data as it was. A new sub-operation that forgot
 * the tenant filter fails here without anyone writing a test for it. The same calls by A
 * itself do reach the records (not 404), so B's 404s are tenancy, not a wrong URL.
 */

/** Every capability the service knows: only tenancy can refuse these callers. */
const everything = capabilities.map((c) => c.name);
const writable = resources.filter((r) => r.name !== 'audit-logs' && r.operations.includes('create')).map((r) => r.name);

interface Operation {
  readonly method: string;
  readonly path: string;
  /** The resource the `{id}` names: the path's first segment after `/v1/`. */
  readonly resource: string;
}

/** The operations on one record: an `{id}` in the path and a capability (public routes authenticate otherwise). */
function recordOperations(document: OpenApiDocument): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/') || !path.includes('{id}')) continue;
    for (const [method, operation] of Object.entries(item as Record<string, { 'x-capability'?: string; 'x-alias-of'?: string }>)) {
      // A trailing-slash form (`x-alias-of`) is the same route as its canonical operation.
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method) || operation['x-capability'] === undefined || operation['x-alias-of'] !== undefined) continue;
      found.push({ method: method.toUpperCase(), path, resource: path.split('/')[2] ?? '' });
    }
  }
  return found;
}

// B's calls must come before A's, which delete and erase the records: the steps keep their
// order under `--sequence.shuffle` (files and other suites still shuffle).
describe('tenant isolation of every record operation', { shuffle: false }, () => {
  describe.each(dialects)('every record operation of the OpenAPI document stays within the tenant on %s', (dialect) => {
    let h: Harness;
    const token = { a: '', b: '' };
    const inA = new Map<string, string>();
    let deliveryId = '';
    let rateId = '';
    let importId = '';
    let operations: Operation[] = [];

    beforeAll(async () => {
      h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
      const [a, b] = [await h.tenant('A', 'parent_tenant'), await h.tenant('B', 'parent_tenant')];
      [token.a, token.b] = [await h.bearer(a, everything), await h.bearer(b, everything)];
      const post = async (url: string, body?: unknown) => {
        const res = await h.request({ method: 'POST', url, token: token.a, ...(body === undefined ? {} : { body }) });
        if (res.statusCode >= 300) throw new Error(`POST ${url} as A failed: ${res.statusCode} ${res.body}`);
        return res.json() as Record<string, unknown>;
      };
      const parents = { productId: String((await post('/v1/products', productBody))._id), userId: String((await post('/v1/users', { email: 'owner@example.com' }))._id) };
      for (const name of writable) inA.set(name, String((await post(`/v1/${name}`, minimalBody(name, parents)))._id));
      rateId = String((await post(`/v1/products/${inA.get('products') ?? ''}/rates`, minimalBody('product-rates', parents)))._id);
      await post(`/v1/products/${inA.get('products') ?? ''}/calendar-feed`);
      importId = String((await post(`/v1/products/${inA.get('products') ?? ''}/calendar-imports`, minimalBody('calendar-imports', parents)))._id);
      // The webhook's first delivery, and one of A's audit entries.
      deliveryId = String((await post(`/v1/webhooks/${inA.get('webhooks') ?? ''}/test`)).delivery_id);
      const trail = (await h.request({ method: 'GET', url: '/v1/audit-logs?per_page=1', token: token.a })).json() as { items: { _id: string }[] };
      inA.set('audit-logs', trail.items[0]?._id ?? '');
      operations = recordOperations((await h.request({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument);
    });
    afterAll(() => h.close());

    /** The call of `operation` on A's record: its URL, a valid body where it takes one, and A's current ETag. */
    async function call(operation: Operation, who: keyof typeof token) {
      const id = inA.get(operation.resource);
      if (!id) throw new Error(`no record of ${operation.resource} in A for ${operation.method} ${operation.path}`);
      // Its required query parameters (the only operation that has some), so it gets past validation.
      const query = operation.path.endsWith('/availability') ? '?from=2026-12-01&to=2026-12-08' : '';
      const url = operation.path.replace('{id}', id).replace('{delivery_id}', deliveryId).replace('{rate_id}', rateId).replace('{import_id}', importId) + query;
      const rate = operation.path.includes('/rates');
      const subRecord = operation.path.includes('{rate_id}') || operation.path.includes('{import_id}');
      const own = await h.request({ method: 'GET', url: subRecord ? url.replace(/\/sync$/, '') : `/v1/${operation.resource}/${id}`, token: token.a });
      // B's 404 means something only while the record is there for A.
      if (who === 'b' && own.statusCode !== 200) throw new Error(`A's ${operation.resource} record is gone before ${operation.method} ${operation.path}`);
      const { etag } = own.headers;
      const body = rate
        ? operation.method === 'PATCH'
          ? patchBody('product-rates')
          : operation.method === 'POST'
            ? minimalBody('product-rates', { productId: id, userId: '' })
            : undefined
        : operation.method === 'PATCH'
          ? patchBody(operation.resource as ResourceName)
          : operation.path.endsWith('/keys')
            ? { public_key: clientKeyPair().publicPem }
            : operation.method === 'POST' && operation.path.endsWith('/calendar-imports')
              ? minimalBody('calendar-imports', { productId: id, userId: '' })
              : undefined;
      return h.request({ method: operation.method, url, token: token[who], headers: typeof etag === 'string' ? { 'if-match': etag } : {}, ...(body === undefined ? {} : { body }) });
    }

    /** What B could have changed in A: every resource table's rows and latest change, the trail, deliveries, secrets, keys. */
    async function snapshot(): Promise<string> {
      const parts: unknown[] = [];
      for (const resource of resources) {
        const { rows } = await sql<Record<string, unknown>>`select count(*) as n, max(updated_at) as last from ${sql.table(resource.table)}`.execute(h.database.db);
        parts.push(resource.table, rows);
      }
      for (const table of ['audit_logs', 'webhook_secrets', 'user_totp', 'idempotency_keys']) {
        parts.push(table, (await sql<Record<string, unknown>>`select count(*) as n from ${sql.table(table)}`.execute(h.database.db)).rows);
      }
      parts.push(await h.database.db.selectFrom('webhook_deliveries').select(['_id', 'status', 'attempts', 'next_attempt_at']).orderBy('_id').execute());
      return JSON.stringify(parts);
    }

    it('finds the operations: CRUD and every sub-operation on a record', () => {
      const names = operations.map((operation) => `${operation.method} ${operation.path}`);
      expect(names.length).toBeGreaterThan(40);
      for (const expected of [
        'POST /v1/users/{id}/erase',
        'GET /v1/users/{id}/export',
        'POST /v1/api-clients/{id}/keys',
        'POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry',
        'GET /v1/products/{id}/availability',
      ])
        expect(names).toContain(expected);
    });

    it("answers B 404 on every one of them for A's records, and changes nothing of A's", async () => {
      const before = await snapshot();
      const answers: string[] = [];
      for (const operation of operations) {
        const res = await call(operation, 'b');
        answers.push(`${operation.method} ${operation.path} → ${res.statusCode} ${res.statusCode === 404 ? String(res.json().code) : res.body.slice(0, 200)}`);
      }
      expect(answers.filter((answer) => !answer.includes('→ 404 not_found'))).toEqual([]);
      expect(await snapshot()).toBe(before);
    });

    it('reaches every record when A itself calls with the same URL, body and ETag (so the 404s above are tenancy), deletions last', async () => {
      // Deletions last, a product's rate before the product.
      const rank = (x: Operation) => (x.method === 'DELETE' ? (x.path.includes('{rate_id}') || x.path.includes('{import_id}') ? 1 : 2) : 0);
      const ordered = [...operations].sort((x, y) => rank(x) - rank(y));
      const missed: string[] = [];
      for (const operation of ordered) {
        const res = await call(operation, 'a');
        if (res.statusCode === 404 || res.statusCode === 400 || res.statusCode >= 500) missed.push(`${operation.method} ${operation.path} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      expect(missed).toEqual([]);
    });
  });
});
