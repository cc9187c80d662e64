/**
 * Tenant reach against a brute-force model of docs/tenancy.md and docs/end-users.md, over a
 * hierarchy with every shape the levels allow (a tenant below a partner, a parent_tenant and
 * a tenant right below system). Random callers — the system client with and without
 * `X-Tenant-Id`, a client in every node, staff and guest users — send random reads, lists,
 * availability queries and writes; each answer must be what the model says:
 * - a record outside the caller's reach is 404 and never listed, counted or named in a
 *   capacity refusal's `conflicts`; a guest reaches only the bookings naming it;
 * - a booking may name only a product in reach, is written to the node the request acts in,
 *   and capacity counts every tenant's bookings of the product;
 * - `X-Tenant-Id` is for the system client only (403 otherwise, 400 for an unknown node) and
 *   confines it to the named node's subtree; a missing capability is 403 whatever the reach.
 * The steps run in order on one growing world, so a write's effect is judged by later reads.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';
import { OutboxFanOut } from '../../../src/webhooks/fan-out.js';
import { chooseHeader, cities, clientCapabilities, hooks, iso, roleCapabilities, tree, windows, World } from './reach-model.js';
import type { Caller, Node, Product } from './reach-model.js';

const steps = Number(process.env['REACH_MODEL_STEPS'] ?? 800);
const seed = Number(process.env['REACH_MODEL_SEED'] ?? 20261129);

/** One random step: indices are taken modulo the world's lists when the step runs. */
const step = fc.record({
  caller: fc.nat(),
  /** `X-Tenant-Id`: mostly a node for the system client, now and then for the others. */
  header: fc.nat({ max: 19 }),
  /** Most steps aim at a record the caller reaches from its own node, the rest at any. */
  aim: fc.nat({ max: 9 }),
  op: fc.constantFrom(
    'read-product',
    'read-booking',
    'read-tenant',
    'list-products',
    'list-bookings',
    'list-tenants',
    'product-slots',
    'search',
    'book',
    'book',
    'book',
    'toggle-booking',
    'toggle-booking',
    'rename-product',
    'delete-booking',
    'delete-product',
    'audit-trail',
  ),
  product: fc.nat(),
  booking: fc.nat(),
  node: fc.nat(),
  window: fc.nat({ max: windows.length - 1 }),
  city: fc.nat({ max: cities.length - 1 }),
});

describe.each(dialects)('tenant reach against a brute-force model on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let offset = 0;
  const now = () => Date.now() + offset;
  const world = new World();
  const callers: Caller[] = [];
  let system: Caller;
  const webhooks = new Map<string, { node: string; events: readonly string[]; active: boolean }>();

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
    const byName = new Map<string, Node>();
    for (const [name, level, parentName] of tree) {
      const parent = parentName === null ? null : (byName.get(parentName) ?? null);
      const id = await h.tenant(name, level, parent?.id ?? null);
      const node = { id, name, path: [...(parent?.path ?? []), id] };
      byName.set(name, node);
      world.nodes.set(id, node);
    }
    // The webhooks come first, so that every write below is an event they may hear.
    const hookToken = await h.bearer(null, ['webhooks:create']);
    for (const [nodeName, events, active] of hooks) {
      const node = byName.get(nodeName) as Node;
      const body = { url: `http://127.0.0.1:9/${nodeName}`, events, active };
      const created = await h.request({ method: 'POST', url: '/v1/webhooks/', token: hookToken, body, headers: { 'x-tenant-id': node.id } });
      expect(created.statusCode, created.body).toBe(201);
      webhooks.set(created.json<{ _id: string }>()._id, { node: node.id, events, active });
    }
    const client = async (name: string, home: string | null): Promise<Caller> => ({
      name,
      kind: 'client',
      token: await h.bearer(home, clientCapabilities),
      home,
      user: null,
      capabilities: new Set(clientCapabilities),
    });
    system = await client('system', null);
    callers.push(system);
    for (const node of world.nodes.values()) callers.push(await client(`client@${node.name}`, node.id));
    for (const nodeName of ['P1.A', 'P1.A.1']) {
      const node = byName.get(nodeName) as Node;
      const level = node.path.length === 2 ? 'parent_tenant' : 'tenant';
      for (const kind of ['staff', 'guest'] as const) {
        const email = `${kind}.${nodeName}@users.test`.toLowerCase();
        const user = await createUserIn(h, node.id, level, { email, role: kind });
        const token = await signInByEmail(h, smtp, node.id, email, { now, advance: (ms) => (offset += ms) });
        callers.push({ name: `${kind}@${nodeName}`, kind, token, home: node.id, user, capabilities: new Set(roleCapabilities[kind]) });
      }
    }
    // Two products per node, in both cities, some unpublished, with one or two units.
    for (const [index, node] of [...world.nodes.values()].entries()) {
      for (const which of [0, 1]) {
        const body = {
          name: `${node.name}/${which}`,
          address: 'A 1',
          city: cities[which] as string,
          zip_code: '1',
          total_items: 1 + ((index + which) % 2),
          is_published: (index + which) % 3 !== 0,
        };
        const created = await h.request({ method: 'POST', url: '/v1/products/', token: system.token, body, headers: { 'x-tenant-id': node.id } });
        expect(created.statusCode, created.body).toBe(201);
        const product = { id: created.json<{ _id: string }>()._id, node: node.id, city: body.city, total: body.total_items, published: body.is_published, deleted: false };
        world.products.push(product);
        world.wrote('products.created', product);
      }
    }
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  /** The current ETag of a record, read by the system client (a placeholder once it is gone). */
  const etagOf = async (resource: string, id: string): Promise<string> => {
    const read = await h.request({ method: 'GET', url: `/v1/${resource}/${id}`, token: system.token });
    return read.statusCode === 200 ? String(read.headers.etag) : '"gone"';
  };

  it('answers every caller as the model says', async () => {
    const plan = fc.sample(step, { seed, numRuns: steps });
    const tally = new Map<string, number>();
    const count = (label: string) => tally.set(label, (tally.get(label) ?? 0) + 1);
    for (const [index, s] of plan.entries()) {
      const caller = callers[s.caller % callers.length] as Caller;
      const nodes = [...world.nodes.values()];
      const headerValue = chooseHeader(caller, s.header, nodes[s.node % nodes.length] as Node);
      const headers: Record<string, string> = headerValue === undefined ? {} : { 'x-tenant-id': headerValue };
      const aimed = <T extends { node: string }>(records: readonly T[], pick: number): T | undefined => {
        const near = records.filter((r) => world.inScope(caller.home, r.node));
        const from = s.aim < 7 && near.length > 0 ? near : records;
        return from[pick % from.length];
      };
      const product = aimed(world.products, s.product) as Product;
      const booking = aimed(world.bookings, s.booking);
      const window = windows[s.window] as (typeof windows)[number];
      const city = cities[s.city] as string;
      const send = (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) => h.request({ method, url, token: caller.token, body, headers: { ...headers, ...extra } });
      const what = (answer: { statusCode: number; body: string }) =>
        `step ${index} (seed ${seed}): ${caller.name} ${s.op} ${headerValue ? `as ${headerValue} ` : ''}→ ${answer.statusCode} ${answer.body}`;

      /** A capacity refusal: no unit free, naming the bookings in the way that the caller may read. */
      const refusedForCapacity = (answer: { statusCode: number; body: string; json<T>(): T }, conflicts: readonly string[]) => {
        const problem = answer.json<{ code?: string; available?: number; conflicts?: string[] }>();
        const got = { status: answer.statusCode, code: problem.code, available: problem.available, conflicts: [...(problem.conflicts ?? [])].sort() };
        expect(got, what(answer)).toEqual({ status: 409, code: 'capacity_exceeded', available: 0, conflicts });
      };
      /** Checks a refusal the model expects; answers the scope when the request gets past access. */
      const admitted = (answer: { statusCode: number; body: string; json<T>(): T }, capability: string): { scope: string | null } | undefined => {
        const access = world.access(caller, capability, headerValue);
        if ('scope' in access) return access;
        expect({ status: answer.statusCode, code: answer.json<{ code: string }>().code }, what(answer)).toEqual({ status: access.refused, code: access.code });
        count(`refused ${access.code}`);
        return undefined;
      };

      switch (s.op) {
        case 'read-product':
        case 'product-slots': {
          const url = s.op === 'read-product' ? `/v1/products/${product.id}` : `/v1/products/${product.id}/availability?from=2030-01-07&to=2030-01-08`;
          const answer = await send('GET', url);
          const access = admitted(answer, 'products:read');
          if (!access) break;
          const seen = world.visibleProduct(access.scope, product);
          expect(answer.statusCode, what(answer)).toBe(seen ? 200 : 404);
          if (seen && s.op === 'product-slots') {
            // Capacity counts the bookings of every tenant, including those the caller cannot read.
            const booked = world.peak(product.id, Date.UTC(2030, 0, 7), Date.UTC(2030, 0, 8));
            expect(
              answer.json<{ slots: { booked: number }[] }>().slots.map((slot) => slot.booked),
              what(answer),
            ).toEqual([booked]);
          }
          count(`${s.op} ${answer.statusCode}`);
          break;
        }
        case 'read-booking': {
          if (!booking) break;
          const answer = await send('GET', `/v1/bookings/${booking.id}`);
          const access = admitted(answer, 'bookings:read');
          if (!access) break;
          const seen = world.visibleBooking(caller, access.scope, booking);
          expect(answer.statusCode, what(answer)).toBe(seen ? 200 : 404);
          count(`read-booking ${answer.statusCode}`);
          break;
        }
        case 'read-tenant': {
          const node = nodes[s.node % nodes.length] as Node;
          const answer = await send('GET', `/v1/tenants/${node.id}`);
          const access = admitted(answer, 'tenants:read');
          if (!access) break;
          expect(answer.statusCode, what(answer)).toBe(world.inScope(access.scope, node.id) ? 200 : 404);
          count(`read-tenant ${answer.statusCode}`);
          break;
        }
        case 'list-products':
        case 'list-bookings':
        case 'list-tenants': {
          const [url, capability, expected] = {
            'list-products': () =>
              [
                `/v1/products/?city=${city}&per_page=100`,
                'products:list',
                (scope: string | null) => world.products.filter((p) => p.city === city && world.visibleProduct(scope, p)).map((p) => p.id),
              ] as const,
            'list-bookings': () =>
              [
                `/v1/bookings/?product_id=${product.id}&per_page=100`,
                'bookings:list',
                (scope: string | null) => world.bookings.filter((b) => b.product === product.id && world.visibleBooking(caller, scope, b)).map((b) => b.id),
              ] as const,
            'list-tenants': () => [`/v1/tenants/?per_page=100`, 'tenants:list', (scope: string | null) => nodes.filter((n) => world.inScope(scope, n.id)).map((n) => n.id)] as const,
          }[s.op]();
          const answer = await send('GET', url);
          const access = admitted(answer, capability);
          if (!access) break;
          const ids = expected(access.scope).sort();
          const body = answer.json<{ items: { _id: string }[]; total: number }>();
          expect({ status: answer.statusCode, total: body.total, ids: body.items.map((item) => item._id).sort() }, what(answer)).toEqual({ status: 200, total: ids.length, ids });
          count(`${s.op} ${ids.length > 0 ? 'some' : 'none'}`);
          break;
        }
        case 'search': {
          const answer = await send('GET', `/v1/availability?from=${iso(window.start)}&to=${iso(window.end)}&city=${city}&per_page=100`);
          const access = admitted(answer, 'products:list');
          if (!access) break;
          const free = world.products
            .filter((p) => p.city === city && world.visibleProduct(access.scope, p) && (caller.kind !== 'guest' || p.published))
            .map((p) => ({ _id: p.id, available: p.total - world.peak(p.id, window.start, window.end) }))
            .filter((p) => p.available >= 1)
            .sort((a, b) => a._id.localeCompare(b._id));
          const items = answer.json<{ items: { _id: string; available: number }[] }>().items.map((item) => ({ _id: item._id, available: item.available }));
          expect({ status: answer.statusCode, items: items.sort((a, b) => a._id.localeCompare(b._id)) }, what(answer)).toEqual({ status: 200, items: free });
          count(`search ${free.length > 0 ? 'some' : 'none'}`);
          break;
        }
        case 'book': {
          const body = { product_id: product.id, start_time: iso(window.start), end_time: iso(window.end) };
          const answer = await send('POST', '/v1/bookings/', body);
          const access = admitted(answer, 'bookings:create');
          if (!access) break;
          const problem = answer.json<{ code?: string; errors?: { field: string }[]; available?: number; conflicts?: string[] }>();
          if (access.scope === null) {
            expect({ status: answer.statusCode, fields: problem.errors?.map((e) => e.field) }, what(answer)).toEqual({ status: 400, fields: ['X-Tenant-Id'] });
          } else if (!world.visibleProduct(access.scope, product)) {
            expect({ status: answer.statusCode, fields: problem.errors?.map((e) => e.field) }, what(answer)).toEqual({ status: 400, fields: ['product_id'] });
          } else if (caller.kind === 'guest' && !product.published) {
            expect({ status: answer.statusCode, code: problem.code }, what(answer)).toEqual({ status: 409, code: 'product_unavailable' });
          } else {
            const free = product.total - world.peak(product.id, window.start, window.end);
            if (free >= 1) {
              expect(answer.statusCode, what(answer)).toBe(201);
              const record = answer.json<{ _id: string; tenant_id: string; user_id: string | null }>();
              expect({ tenant_id: record.tenant_id, user_id: record.user_id ?? null }, what(answer)).toEqual({ tenant_id: access.scope, user_id: caller.kind === 'guest' ? caller.user : null });
              const made = { id: record._id, node: access.scope, product: product.id, user: record.user_id ?? null, ...window, quantity: 1, active: true, deleted: false };
              world.bookings.push(made);
              world.wrote('bookings.created', made);
            } else {
              refusedForCapacity(answer, world.conflicts(caller, access.scope, product.id, window.start, window.end));
            }
          }
          count(`book ${answer.statusCode}`);
          break;
        }
        case 'toggle-booking': {
          if (!booking) break;
          const answer = await send('PATCH', `/v1/bookings/${booking.id}`, { status: booking.active ? 'cancelled' : 'active' }, { 'if-match': await etagOf('bookings', booking.id) });
          const access = admitted(answer, 'bookings:update');
          if (!access) break;
          if (!world.visibleBooking(caller, access.scope, booking)) {
            expect(answer.statusCode, what(answer)).toBe(404);
          } else if (booking.active) {
            expect(answer.statusCode, what(answer)).toBe(200);
            booking.active = false;
            world.wrote('bookings.updated', booking);
          } else if (world.peak(booking.product, booking.start, booking.end, booking) < (world.products.find((p) => p.id === booking.product) as Product).total) {
            expect(answer.statusCode, what(answer)).toBe(200);
            booking.active = true;
            world.wrote('bookings.updated', booking);
          } else {
            refusedForCapacity(answer, world.conflicts(caller, access.scope, booking.product, booking.start, booking.end, booking));
          }
          count(`toggle-booking ${answer.statusCode}`);
          break;
        }
        case 'rename-product': {
          const answer = await send('PATCH', `/v1/products/${product.id}`, { name: `renamed at step ${index}` }, { 'if-match': await etagOf('products', product.id) });
          const access = admitted(answer, 'products:update');
          if (!access) break;
          const seen = world.visibleProduct(access.scope, product);
          expect(answer.statusCode, what(answer)).toBe(seen ? 200 : 404);
          if (seen) world.wrote('products.updated', product);
          count(`rename-product ${answer.statusCode}`);
          break;
        }
        case 'delete-booking': {
          if (!booking) break;
          const answer = await send('DELETE', `/v1/bookings/${booking.id}`, undefined, { 'if-match': await etagOf('bookings', booking.id) });
          const access = admitted(answer, 'bookings:delete');
          if (!access) break;
          const seen = world.visibleBooking(caller, access.scope, booking);
          expect(answer.statusCode, what(answer)).toBe(seen ? 204 : 404);
          if (seen) {
            booking.deleted = true;
            world.wrote('bookings.deleted', booking);
          }
          count(`delete-booking ${answer.statusCode}`);
          break;
        }
        case 'delete-product': {
          const answer = await send('DELETE', `/v1/products/${product.id}`, undefined, { 'if-match': await etagOf('products', product.id) });
          const access = admitted(answer, 'products:delete');
          if (!access) break;
          // A booking the caller cannot see still blocks the delete (only its resource is named).
          const blocked = world.bookings.some((b) => b.product === product.id && !b.deleted);
          const expected = !world.visibleProduct(access.scope, product) ? 404 : blocked ? 409 : 204;
          expect(answer.statusCode, what(answer)).toBe(expected);
          if (expected === 409) expect(answer.json<{ blocking_resources: string[] }>().blocking_resources, what(answer)).toEqual(['bookings']);
          if (expected === 204) {
            product.deleted = true;
            world.wrote('products.deleted', product);
          }
          count(`delete-product ${answer.statusCode}`);
          break;
        }
        case 'audit-trail': {
          // A record's trail, deleted records included, is visible where the record's node is
          // in scope; refused writes leave no entry.
          const record = booking && s.window % 2 === 0 ? booking : product;
          const answer = await send('GET', `/v1/audit-logs/?record_id=${record.id}&per_page=100`);
          const access = admitted(answer, 'audit-logs:list');
          if (!access) break;
          const entries = world.inScope(access.scope, record.node) ? world.writes.filter((w) => w.record === record.id).length : 0;
          expect({ status: answer.statusCode, total: answer.json<{ total: number }>().total }, what(answer)).toEqual({ status: 200, total: entries });
          count(`audit-trail ${entries > 0 ? 'some' : 'none'}`);
          break;
        }
      }
    }
    // Each committed write, and no refused one, is one delivery to every active webhook of
    // its record's node or a node above that subscribes to its event.
    const fanOut = new OutboxFanOut(h.database, { now });
    while ((await fanOut.run()) > 0);
    const delivered = await h.database.db.selectFrom('webhook_deliveries as d').innerJoin('outbox_events as e', 'e._id', 'd.event_id').select(['d.webhook_id', 'e.type', 'e.record_id']).execute();
    for (const [id, hook] of webhooks) {
      const expected = world.writes.filter((w) => hook.active && hook.events.includes(w.type) && world.inScope(hook.node, w.node)).map((w) => `${w.type} ${w.record}`);
      const got = delivered.filter((d) => d.webhook_id === id).map((d) => `${String(d.type)} ${String(d.record_id)}`);
      expect(got.sort(), `deliveries of the webhook on ${JSON.stringify(hook)}`).toEqual(expected.sort());
      count(`webhook ${hook.active && expected.length > 0 ? 'heard' : 'silent'}`);
    }
    // The plan must have exercised each outcome that matters, or it proves little.
    for (const outcome of [
      'read-booking 404',
      'read-booking 200',
      'list-bookings some',
      'search some',
      'book 201',
      'book 409',
      'book 400',
      'toggle-booking 409',
      'delete-product 409',
      'audit-trail some',
      'audit-trail none',
      'refused tenant_forbidden',
      'webhook heard',
      'webhook silent',
    ]) {
      expect(tally.get(outcome) ?? 0, `${outcome} in ${JSON.stringify(Object.fromEntries(tally))}`).toBeGreaterThan(0);
    }
  });
});
