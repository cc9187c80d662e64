/**
 * `Idempotency-Key` against a brute-force model of docs/api.md ("Idempotency keys"), over a
 * random sequence of POSTs on one clock: two clients of one tenant and a system client
 * acting in either of two tenants, three keys, creates of products and of bookings (whose
 * capacity runs out), paths spelt with and without the trailing slash, bodies repeated,
 * changed, reordered or invalid, and the clock moved by seconds or across the 24-hour window.
 * Each answer must be the model's: a replay of the first answer, 422 for another body under
 * the same key, or a new execution — stored when it succeeded, the key left free when not.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness, TestClient } from '../../support/harness.js';

const steps = Number(process.env['IDEMPOTENCY_MODEL_STEPS'] ?? 300);
const seed = Number(process.env['IDEMPOTENCY_MODEL_SEED'] ?? 20261129);

const hour = 3_600_000;
const day = 24 * hour;
/** Booking windows: each product has two units, so the third booking of a window is refused. */
const windows = [0, 1].map((n) => ({ start_time: `2030-02-0${n + 1}T10:00:00.000Z`, end_time: `2030-02-0${n + 1}T12:00:00.000Z` }));

/** One remembered answer: the model's view of a stored key. */
interface Stored {
  readonly body: string;
  readonly id: string;
  readonly until: number;
}

/** Key order does not change a body (docs/api.md: the same body); the model compares sorted JSON. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const step = fc.record({
  caller: fc.constantFrom('a', 'b', 'system'),
  tenant: fc.nat({ max: 1 }),
  key: fc.constantFrom('k1', 'k2', 'k3', 'none'),
  route: fc.constantFrom('products', 'bookings'),
  slash: fc.boolean(),
  variant: fc.nat({ max: 2 }),
  /** Now and then a body the service refuses (400), and now and then the same body with its keys reversed. */
  shape: fc.constantFrom('plain', 'plain', 'plain', 'reversed', 'invalid'),
  advance: fc.constantFrom(0, 0, 0, 0, 0, 1000, day - 1000, day),
});

describe.each(dialects)('Idempotency-Key against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let now = Date.now();
  const tenants: string[] = [];
  const products = new Map<string, string>();
  const clients = new Map<string, TestClient>();
  const tokens = new Map<string, string>();

  /** A token minted at the service's time, so the clock may move days ahead of the wall clock. */
  const mint = async (name: string) => tokens.set(name, await h.token(clients.get(name) as TestClient, undefined, now));

  beforeAll(async () => {
    h = await createHarness(dialect, { clock: { now: () => now } });
    const capabilities = [...crud('products'), ...crud('bookings')];
    for (const name of ['One', 'Two']) tenants.push(await h.tenant(name));
    clients.set('a', await h.client(tenants[0] as string, capabilities));
    clients.set('b', await h.client(tenants[0] as string, capabilities));
    clients.set('system', await h.client(null, capabilities));
    for (const name of clients.keys()) await mint(name);
    for (const tenant of tenants) {
      const body = { name: 'Room', address: 'A 1', city: 'C', zip_code: '1', total_items: 2 };
      const created = await h.request({ method: 'POST', url: '/v1/products/', token: tokens.get('system'), body, headers: { 'x-tenant-id': tenant } });
      expect(created.statusCode, created.body).toBe(201);
      products.set(tenant, created.json<{ _id: string }>()._id);
    }
  });
  afterAll(() => h?.close());

  it('replays, refuses or runs every request as the model says', async () => {
    const stored = new Map<string, Stored>();
    /** Units held per tenant's product and window index. */
    const held = new Map<string, number>();
    const tally = new Map<string, number>();
    const count = (label: string) => tally.set(label, (tally.get(label) ?? 0) + 1);

    for (const [index, s] of fc.sample(step, { seed, numRuns: steps }).entries()) {
      if (s.advance > 0) {
        now += s.advance;
        for (const name of clients.keys()) await mint(name);
      }
      // Clients of a tenant act in it; the system client names a tenant in X-Tenant-Id.
      const tenant = s.caller === 'system' ? (tenants[s.tenant] as string) : (tenants[0] as string);
      const product = products.get(tenant) as string;
      const window = windows[s.variant % windows.length] as (typeof windows)[number];
      const fields: Record<string, unknown> =
        s.route === 'products'
          ? { name: `Room ${s.variant}`, address: 'A 1', city: 'C', zip_code: '1', total_items: s.shape === 'invalid' ? -1 : 3 }
          : { product_id: product, ...window, quantity: s.shape === 'invalid' ? 0 : 1 };
      const body = s.shape === 'reversed' ? Object.fromEntries(Object.entries(fields).reverse()) : fields;
      const headers: Record<string, string> = { ...(s.key === 'none' ? {} : { 'idempotency-key': s.key }), ...(s.caller === 'system' ? { 'x-tenant-id': tenant } : {}) };
      const url = `/v1/${s.route}${s.slash ? '/' : ''}`;
      const answer = await h.request({ method: 'POST', url, token: tokens.get(s.caller), body, headers });
      const what = `step ${index} (seed ${seed}): ${s.caller} in tenant ${tenants.indexOf(tenant)} ${s.key} POST ${url} ${JSON.stringify(body)} → ${answer.statusCode} ${answer.body}`;

      // The key's scope: the caller, the tenant it acts in and the route (however spelt).
      const scope = `${s.caller} ${tenant} ${s.route} ${s.key}`;
      const memory = s.key === 'none' ? undefined : stored.get(scope);
      if (memory && now < memory.until) {
        if (memory.body === canonical(body)) {
          expect({ status: answer.statusCode, replayed: answer.headers['idempotency-replayed'], id: answer.json<{ _id: string }>()._id }, what).toEqual({
            status: 201,
            replayed: 'true',
            id: memory.id,
          });
          count('replayed');
        } else {
          expect({ status: answer.statusCode, code: answer.json<{ code: string }>().code }, what).toEqual({ status: 422, code: 'idempotency_key_reused' });
          count('reused');
        }
        continue;
      }
      const units = `${tenant} ${s.variant % windows.length}`;
      const expected = s.shape === 'invalid' ? 400 : s.route === 'bookings' && (held.get(units) ?? 0) >= 2 ? 409 : 201;
      expect({ status: answer.statusCode, replayed: answer.headers['idempotency-replayed'] }, what).toEqual({ status: expected, replayed: undefined });
      count(`ran ${expected}${memory ? ' after the window' : ''}`);
      if (expected !== 201) continue;
      if (s.route === 'bookings') held.set(units, (held.get(units) ?? 0) + 1);
      if (s.key !== 'none') stored.set(scope, { body: canonical(body), id: answer.json<{ _id: string }>()._id, until: now + day });
    }
    // The sequence must have met each case that matters, or it proves little.
    for (const outcome of ['replayed', 'reused', 'ran 201', 'ran 400', 'ran 409', 'ran 201 after the window']) {
      expect(tally.get(outcome) ?? 0, `${outcome} in ${JSON.stringify(Object.fromEntries(tally))}`).toBeGreaterThan(0);
    }
  });
});
