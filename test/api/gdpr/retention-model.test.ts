/**
 * Retention policies against a brute-force model of docs/gdpr.md ("Legal holds",
 * "Retention policies"). Each world is a hierarchy holding products, users and bookings of
 * random ages (some soft-deleted, some bookings naming users), legal holds on random records
 * (some expired, some running) and retention policies in random nodes. Then:
 * - every policy's preview answers the model's `{ due, held }`: records of its category in
 *   its node's subtree, created more than `retention_days` ago; for `delete` only those no
 *   record references (soft-deleted ones count), for `anonymize` only live ones with
 *   personal values left; `held` those an active hold covers (on the record, or on the user
 *   it names);
 * - running the job until it has nothing left to do leaves exactly the records the model's
 *   fixpoint keeps, anonymised exactly where the model says.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { applyRetentionPolicies } from '../../../src/gdpr/retention-policies.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const worlds = Number(process.env['RETENTION_MODEL_WORLDS'] ?? 8);
const seed = Number(process.env['RETENTION_MODEL_SEED'] ?? 20261129);

const day = 86_400_000;
const start = Date.now();

/** The hierarchy: name and parent's index (`-1`: right below system). */
const tree: readonly (readonly [string, 'partner' | 'parent_tenant' | 'tenant', number])[] = [
  ['P', 'partner', -1],
  ['P.A', 'parent_tenant', 0],
  ['P.A.1', 'tenant', 1],
  ['P.A.2', 'tenant', 1],
  ['P.B', 'tenant', 0],
  ['S', 'tenant', -1],
];

type Kind = 'products' | 'users' | 'bookings';

interface Row {
  readonly kind: Kind;
  readonly id: string;
  readonly node: number;
  readonly created: number;
  softDeleted: boolean;
  /** Bookings: the product and the user they name. */
  readonly product?: Row;
  readonly user?: Row | undefined;
  /** Whether a personal value is left to anonymise (a booking's notes may be absent). */
  personal: boolean;
  purged: boolean;
  anonymised: boolean;
}

interface Hold {
  readonly id: string;
  readonly target: Row;
  /** `null`: until released. */
  readonly expires: number | null;
}

interface Policy {
  readonly id: string;
  readonly node: number;
  readonly category: Kind;
  readonly days: number;
  readonly action: 'delete' | 'anonymize';
}

/** Whether node `inner` lies in the subtree of node `outer`. */
function below(inner: number, outer: number): boolean {
  for (let at = inner; at !== -1; at = (tree[at] as (typeof tree)[number])[2]) if (at === outer) return true;
  return false;
}

class Model {
  constructor(
    readonly rows: readonly Row[],
    readonly holds: readonly Hold[],
    readonly now: number,
  ) {}

  /** The holds in force now: without an end, or ending later. */
  private active(): Hold[] {
    return this.holds.filter((h) => h.expires === null || h.expires > this.now);
  }

  /** The ids of the active holds that cover `row`, refusing its delete: on the record, or on the user a booking names. */
  holdsOn(row: Row): string[] {
    return this.active()
      .filter((h) => h.target === row || (row.kind === 'bookings' && h.target === row.user))
      .map((h) => h.id)
      .sort();
  }

  held(row: Row): boolean {
    return this.holdsOn(row).length > 0;
  }

  /** Why `row` is held: its own hold, or one on the user it names. */
  heldBy(row: Row): 'own hold' | 'user hold' | undefined {
    if (!this.held(row)) return undefined;
    return this.active().some((h) => h.target === row) ? 'own hold' : 'user hold';
  }

  /** The ids of the active holds that refuse erasing `user`: on the user, or on a booking naming it. */
  holdsOnUser(user: Row): string[] {
    return this.active()
      .filter((h) => h.target === user || (h.target.kind === 'bookings' && h.target.user === user && !h.target.purged))
      .map((h) => h.id)
      .sort();
  }

  referenced(row: Row): boolean {
    return this.rows.some((r) => !r.purged && (r.product === row || r.user === row));
  }

  /** The records `policy` would change now, before holds. */
  candidates(policy: Policy): Row[] {
    const cutoff = this.now - policy.days * day;
    return this.rows.filter((r) => {
      if (r.purged || r.kind !== policy.category || !below(r.node, policy.node) || r.created >= cutoff) return false;
      // Soft-deleted records count too: their personal values are still stored.
      return policy.action === 'delete' ? !this.referenced(r) : r.personal && !r.anonymised;
    });
  }

  preview(policy: Policy): { due: number; held: number } {
    const found = this.candidates(policy);
    const held = found.filter((r) => this.held(r)).length;
    return { due: found.length - held, held };
  }

  /**
   * Applies every policy until nothing changes: the state the job converges to. Answers what
   * happened, `waited` counting purges a reference held back until a later pass.
   */
  settle(policies: readonly Policy[]): Record<'purged' | 'anonymised' | 'anonymised deleted' | 'waited', number> {
    const done = { purged: 0, anonymised: 0, 'anonymised deleted': 0, waited: 0 };
    for (let pass = 0, changed = true; changed; pass += 1) {
      changed = false;
      for (const policy of policies) {
        for (const row of this.candidates(policy).filter((r) => !this.held(r))) {
          if (policy.action === 'delete') {
            row.purged = true;
            done.purged += 1;
            if (pass > 0) done.waited += 1;
          } else {
            row.anonymised = true;
            done.anonymised += 1;
            if (row.softDeleted) done['anonymised deleted'] += 1;
          }
          changed = true;
        }
      }
    }
    return done;
  }
}

const world = fc.record({
  products: fc.array(fc.record({ node: fc.nat({ max: tree.length - 1 }), age: fc.nat({ max: 100 }), deleted: fc.nat({ max: 2 }) }), { minLength: 3, maxLength: 6 }),
  users: fc.array(fc.record({ node: fc.nat({ max: tree.length - 1 }), age: fc.nat({ max: 100 }), deleted: fc.nat({ max: 2 }) }), { minLength: 2, maxLength: 6 }),
  bookings: fc.array(
    fc.record({ product: fc.nat(), above: fc.nat({ max: 2 }), user: fc.nat(), withUser: fc.nat({ max: 3 }), notes: fc.boolean(), age: fc.nat({ max: 100 }), deleted: fc.nat({ max: 2 }) }),
    { minLength: 4, maxLength: 14 },
  ),
  // Holds on users matter most: they cover the user's bookings too.
  holds: fc.array(fc.record({ kind: fc.constantFrom<Kind>('users', 'users', 'users', 'bookings', 'products'), target: fc.nat(), expires: fc.constantFrom('never', 'past', 'future') }), {
    minLength: 1,
    maxLength: 6,
  }),
  policies: fc.array(
    fc.record({
      // Mostly the partner's, whose subtree holds most records.
      node: fc.oneof(fc.constant(0), fc.nat({ max: tree.length - 1 })),
      category: fc.constantFrom<Kind>('products', 'users', 'bookings'),
      days: fc.integer({ min: 1, max: 60 }),
      anonymise: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

/**
 * Policies for the partner's whole subtree added to the random ones, in turn per world: none;
 * a purge of old products or users before, and of old bookings after, the random policies
 * (the first must wait for the last's purge); or anonymising its old bookings and users.
 */
const sweeps = ['none', 'products', 'users', 'anonymise'] as const;

describe.each(dialects)('retention against a brute-force model on %s', (dialect) => {
  const open: Harness[] = [];
  afterAll(async () => {
    for (const h of open) await h.close();
  });

  it('previews and applies every policy as the model says', async () => {
    const tally = new Map<string, number>();
    const count = (label: string, n = 1) => tally.set(label, (tally.get(label) ?? 0) + n);
    for (const [index, plan] of fc.sample(world, { seed, numRuns: worlds }).entries()) {
      const kind = sweeps[index % sweeps.length] as (typeof sweeps)[number];
      let time = start;
      const h = await createHarness(dialect, { clock: { now: () => time } });
      open.push(h);
      const capabilities = [...['users', 'bookings', 'products', 'legal-holds', 'retention-policies', 'tenants'].flatMap(crud), 'users:read:email', 'users:write:email', 'users:erase', 'users:export'];
      const token = await h.bearer(null, capabilities);
      const nodes: string[] = [];
      for (const [name, level, parent] of tree) nodes.push(await h.tenant(name, level, parent === -1 ? null : (nodes[parent] ?? null)));
      const what = `world ${index} (seed ${seed})`;

      /** A request in `node` at `age` days before the start; answers the created or read record. */
      const send = async (method: string, url: string, node: number, age: number, body?: unknown, headers: Record<string, string> = {}) => {
        time = start - age * day;
        const answer = await h.request({ method, url, token, body, headers: { 'x-tenant-id': nodes[node] ?? '', ...headers } });
        time = start;
        return answer;
      };
      const softDelete = async (kind: Kind, row: Row) => {
        const read = await send('GET', `/v1/${kind}/${row.id}`, row.node, 0);
        const deleted = await send('DELETE', `/v1/${kind}/${row.id}`, row.node, 0, undefined, { 'if-match': String(read.headers.etag) });
        expect(deleted.statusCode, `${what}: ${deleted.body}`).toBe(204);
        row.softDeleted = true;
      };
      const create = async (kind: Kind, node: number, age: number, body: Record<string, unknown>, extra: Partial<Row> = {}): Promise<Row> => {
        const created = await send('POST', `/v1/${kind}/`, node, age, body);
        expect(created.statusCode, `${what}: ${created.body}`).toBe(201);
        return { kind, id: created.json<{ _id: string }>()._id, node, created: start - age * day, softDeleted: false, personal: kind !== 'products', purged: false, anonymised: false, ...extra };
      };

      const products: Row[] = [];
      for (const p of plan.products) products.push(await create('products', p.node, p.age, { name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 1000 }));
      const users: Row[] = [];
      for (const [i, u] of plan.users.entries()) users.push(await create('users', u.node, u.age, { email: `u${i}@users.test`, first_name: `First ${i}` }));
      const bookings: Row[] = [];
      for (const [i, b] of plan.bookings.entries()) {
        const product = products[b.product % products.length] as Row;
        // The booking is made in the product's node or one above it, naming a user it reaches.
        let node = product.node;
        for (let up = 0; up < b.above && (tree[node] as (typeof tree)[number])[2] !== -1; up += 1) node = (tree[node] as (typeof tree)[number])[2];
        const reachable = users.filter((u) => below(u.node, node));
        const user = b.withUser > 0 && reachable.length > 0 ? reachable[b.user % reachable.length] : undefined;
        const body = {
          product_id: product.id,
          start_time: new Date(Date.UTC(2030, 0, 1) + i * day).toISOString(),
          end_time: new Date(Date.UTC(2030, 0, 1) + i * day + 3_600_000).toISOString(),
          ...(user ? { user_id: user.id } : {}),
          ...(b.notes ? { notes: `note ${i}` } : {}),
        };
        bookings.push(await create('bookings', node, b.age, body, { product, user, personal: b.notes }));
      }
      // Soft deletes, one in three; a record others name cannot be deleted (cascade deny).
      for (const [i, b] of plan.bookings.entries()) if (b.deleted === 0) await softDelete('bookings', bookings[i] as Row);
      const named = (row: Row) => bookings.some((b) => b.product === row || b.user === row);
      for (const [list, specs, kind] of [
        [products, plan.products, 'products'],
        [users, plan.users, 'users'],
      ] as const) {
        for (const [i, spec] of specs.entries()) if (spec.deleted === 0 && !named(list[i] as Row)) await softDelete(kind, list[i] as Row);
      }

      const rows = [...products, ...users, ...bookings];
      const holds: Hold[] = [];
      for (const spec of plan.holds) {
        // Soft-deleted records may be held too: their rows are still stored.
        const ofKind = rows.filter((r) => r.kind === spec.kind);
        const target = (ofKind.length > 0 ? ofKind : rows)[spec.target % (ofKind.length > 0 ? ofKind : rows).length] as Row;
        const expires = { never: null, past: start - day, future: start + 30 * day }[spec.expires];
        // A hold that has expired by now was made while it still ran.
        const body = { resource: target.kind, record_id: target.id, reason: 'case 1', ...(expires === null ? {} : { expires_at: new Date(expires).toISOString() }) };
        const created = await send('POST', '/v1/legal-holds/', target.node, spec.expires === 'past' ? 2 : 0, body);
        expect(created.statusCode, `${what}: ${created.body}`).toBe(201);
        holds.push({ id: created.json<{ _id: string }>()._id, target, expires });
      }
      const policies: Policy[] = [];
      const sweep = { node: 0, days: 1, anonymise: kind === 'anonymise' };
      const first = kind === 'products' || kind === 'users' ? [{ ...sweep, category: kind }] : [];
      const last = kind === 'none' ? [] : [{ ...sweep, category: 'bookings' as const }, ...(kind === 'anonymise' ? [{ ...sweep, category: 'users' as const }] : [])];
      for (const spec of [...first, ...plan.policies, ...last]) {
        const action = spec.anonymise && spec.category !== 'products' ? 'anonymize' : 'delete';
        const created = await send('POST', '/v1/retention-policies/', spec.node, 0, { category: spec.category, retention_days: spec.days, action });
        expect(created.statusCode, `${what}: ${created.body}`).toBe(201);
        policies.push({ id: created.json<{ _id: string }>()._id, node: spec.node, category: spec.category, days: spec.days, action });
      }

      const model = new Model(rows, holds, start);
      for (const policy of policies) {
        const preview = await send('GET', `/v1/retention-policies/${policy.id}/preview`, policy.node, 0);
        expect(preview.json(), `${what}: preview of ${JSON.stringify(policy)}`).toEqual(model.preview(policy));
        for (const row of model.candidates(policy)) count(`${policy.action} candidate, ${model.heldBy(row) ?? 'not held'}`);
      }

      // The subject export holds the user and, of the bookings naming it and the audit trail
      // of both, what lies in the caller's reach: everywhere, the user's node, or its top node.
      for (const [i, user] of users.entries()) {
        let top = user.node;
        while ((tree[top] as (typeof tree)[number])[2] !== -1) top = (tree[top] as (typeof tree)[number])[2];
        const acting = [undefined, user.node, top][i % 3];
        const answer = await h.request({ method: 'GET', url: `/v1/users/${user.id}/export`, token, headers: acting === undefined ? {} : { 'x-tenant-id': nodes[acting] ?? '' } });
        const named = bookings.filter((b) => b.user === user && (acting === undefined || below(b.node, acting)));
        const document = answer.json<{ user: { _id: string }; records: { bookings: { _id: string }[] }; audit: { record_id: string }[] }>();
        // A soft-deleted record shows its `deleted_at`, and its trail holds the delete.
        expect(
          {
            status: answer.statusCode,
            user: `${document.user._id} ${'deleted_at' in document.user}`,
            bookings: document.records.bookings.map((b) => `${b._id} ${'deleted_at' in b}`).sort(),
            audit: document.audit.map((entry) => entry.record_id).sort(),
          },
          `${what}: export of user ${i}`,
        ).toEqual({
          status: 200,
          user: `${user.id} ${user.softDeleted}`,
          bookings: named.map((b) => `${b.id} ${b.softDeleted}`).sort(),
          audit: [user, ...named].flatMap((r) => (r.softDeleted ? [r.id, r.id] : [r.id])).sort(),
        });
        count(named.length < bookings.filter((b) => b.user === user).length ? 'export within reach' : 'export');
      }

      // Small batches; a policy may wait for another's purge, so the job runs until idle.
      let passes = 0;
      for (;;) {
        const runs = await applyRetentionPolicies(h.database, { now: () => time }, { batchSize: 3 });
        passes += 1;
        if (runs.every((run) => run.processed === 0) || passes > 6) break;
      }
      for (const [outcome, n] of Object.entries(model.settle(policies))) count(outcome, n);
      for (const kind of ['products', 'users', 'bookings'] as const) {
        const stored = (await h.database.db.selectFrom(kind).select('_id').execute()).map((r) => String(r._id)).sort();
        expect(stored, `${what}: ${kind} left`).toEqual(
          rows
            .filter((r) => r.kind === kind && !r.purged)
            .map((r) => r.id)
            .sort(),
        );
      }
      // Erasure and deletes afterwards honour the same holds, and name them when they refuse.
      for (const user of rows.filter((r) => r.kind === 'users' && !r.purged)) {
        const erased = await send('POST', `/v1/users/${user.id}/erase`, user.node, 0);
        const holdIds = model.holdsOnUser(user);
        if (holdIds.length > 0) {
          expect({ status: erased.statusCode, holds: erased.json<{ holds?: string[] }>().holds?.sort() }, `${what}: ${erased.body}`).toEqual({ status: 409, holds: holdIds });
          count('erasure held');
          continue;
        }
        const named = rows.filter((r) => r.kind === 'bookings' && r.user === user && !r.purged);
        // Every one is erased; the answer counts those the caller (acting in the user's node) reaches (docs/gdpr.md).
        expect({ status: erased.statusCode, bookings: erased.json<{ records?: { bookings?: number } }>().records?.bookings }, `${what}: ${erased.body}`).toEqual({
          status: 200,
          bookings: named.filter((r) => below(r.node, user.node)).length,
        });
        // The `redact` rule marks a booking's empty notes too.
        for (const row of [user, ...named]) row.anonymised = true;
        count('erasure done');
      }
      for (const booking of rows.filter((r) => r.kind === 'bookings' && !r.purged && !r.softDeleted)) {
        const read = await send('GET', `/v1/bookings/${booking.id}`, booking.node, 0);
        const deleted = await send('DELETE', `/v1/bookings/${booking.id}`, booking.node, 0, undefined, { 'if-match': String(read.headers.etag) });
        const holdIds = model.holdsOn(booking);
        if (holdIds.length > 0) {
          expect({ status: deleted.statusCode, holds: deleted.json<{ holds?: string[] }>().holds?.sort() }, `${what}: ${deleted.body}`).toEqual({ status: 409, holds: holdIds });
          count('delete held');
        } else {
          expect(deleted.statusCode, `${what}: ${deleted.body}`).toBe(204);
          booking.softDeleted = true;
        }
      }
      // Soft-deleted records are read from storage, where their personal values would stay.
      for (const row of rows.filter((r) => !r.purged && r.kind !== 'products')) {
        const column = row.kind === 'users' ? 'email' : 'notes';
        const value = row.softDeleted
          ? (await h.database.db.selectFrom(row.kind).select(column).where('_id', '=', row.id).executeTakeFirst())?.[column]
          : (await send('GET', `/v1/${row.kind}/${row.id}`, row.node, 0)).json<Record<string, unknown>>()[column];
        const expected = row.anonymised ? '[erased]' : row.kind === 'users' ? expect.stringMatching(/@users\.test$/) : row.personal ? expect.stringMatching(/^note /) : null;
        expect(value ?? null, `${what}: ${row.kind} ${row.id}`).toEqual(expected);
      }
    }
    // The worlds must have met each case that matters, or they prove little.
    const outcomes = ['purged', 'anonymised', 'anonymised deleted', 'waited', 'delete candidate, own hold', 'delete candidate, user hold', 'anonymize candidate, user hold'];
    for (const outcome of [...outcomes, 'erasure held', 'erasure done', 'delete held', 'export', 'export within reach']) {
      expect(tally.get(outcome) ?? 0, `${outcome} in ${JSON.stringify(Object.fromEntries(tally))}`).toBeGreaterThan(0);
    }
  });
});
