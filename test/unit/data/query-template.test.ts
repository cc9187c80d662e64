import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/core/principal.js';
import { asSystem } from '../../../src/core/principal.js';
import { compiledOn, QueryTemplate } from '../../../src/data/query-template.js';
import type { ConnectionQuery } from '../../../src/data/query-template.js';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import type { DialectName } from '../../../src/db/dialect.js';
import { getResource } from '../../../src/registry/index.js';
import { compileTargets } from '../query/compile-only-db.js';

const bookings = getResource('bookings');
const products = getResource('products');

const tenantScope = Object.freeze({ nodeId: 't-1', level: 'tenant' as const, path: '/p-1/t-1/' });
const tenant: Principal = Object.freeze({ actorType: 'client', actorId: 'c-1', capabilities: new Set<string>(), home: tenantScope, scope: tenantScope, unrestricted: false });
const guest: Principal = { ...tenant, actorType: 'user', actorId: 'u-1', ownRecordsOf: 'u-1' };

/** A query shaped like the holdings range: scope filters, a list, three bounds and constants. */
function holdingsLike(queries: ScopedQueries, [productId, earliest, from, to]: readonly unknown[]) {
  return queries
    .scoped(bookings)
    .select(['_id', 'start_time'])
    .where('product_id', 'in', [productId as string])
    .where('start_time', '>=', earliest as string)
    .where('start_time', '<', to as string)
    .where('end_time', '>', from as string)
    .where('status', 'in', ['active', 'completed']);
}

describe.each(['sqlite', 'postgres'] satisfies DialectName[])('QueryTemplate (%s)', (name) => {
  const { db, dialect } = compileTargets[name];
  const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.date({ noInvalidDate: true }));

  it.each([
    ['the system', asSystem()],
    ['a tenant', tenant],
    ['a guest (owner filter)', guest],
  ])('gives the SQL and parameters of building the query anew, for %s', (_label, principal) => {
    const queries = new ScopedQueries(db, dialect, principal);
    const template = QueryTemplate.compile(4, (values) => holdingsLike(queries, values));
    expect(template).not.toBeNull();
    fc.assert(
      fc.property(fc.tuple(value, value, value, value), (values) => {
        const built = holdingsLike(queries, values).compile();
        const filled = template?.compiled(values);
        expect(filled?.sql).toBe(built.sql);
        expect(filled?.parameters).toStrictEqual(built.parameters);
      }),
      { numRuns: 100 },
    );
  });

  it('fills every call afresh: one call’s values never reach the next', () => {
    const queries = new ScopedQueries(db, dialect, tenant);
    const template = QueryTemplate.compile(1, ([id]) => queries.scoped(products).selectAll().where('_id', '=', id as string));
    const first = template?.compiled(['a']);
    const second = template?.compiled(['b']);
    expect(first?.parameters).toContain('a');
    expect(second?.parameters).toContain('b');
    expect(second?.parameters).not.toContain('a');
    expect(first?.queryId).not.toBe(second?.queryId);
  });

  it('refuses a value the query repeats or leaves out (the caller then builds per call)', () => {
    const queries = new ScopedQueries(db, dialect, asSystem());
    expect(QueryTemplate.compile(1, ([id]) => queries.scoped(products).selectAll().where('_id', '=', id as string).where('name', '=', id as string))).toBeNull();
    expect(QueryTemplate.compile(2, ([id]) => queries.scoped(products).selectAll().where('_id', '=', id as string))).toBeNull();
  });

  describe('compiledOn (a plain connection)', () => {
    /** Shaped like the replay claim: an upsert whose takeover repeats nothing but needs its own hole. */
    const upsert: ConnectionQuery = {
      values: 3,
      build: (on, [key, expiresAt, now]) =>
        on
          .insertInto('replay_cache')
          .values({ namespace: 'dpop', key: key as string, expires_at: expiresAt as number })
          .onConflict((conflict) => conflict.columns(['namespace', 'key']).doUpdateSet({ expires_at: expiresAt as number }).where('replay_cache.expires_at', '<=', now as number)),
    };
    const lookup: ConnectionQuery = {
      values: 2,
      build: (on, [clientId, kid]) => on.selectFrom('api_client_keys').selectAll().where('client_id', '=', clientId as string).where('kid', '=', kid as string).limit(2),
    };

    it('gives the SQL and parameters of building the query anew', () => {
      fc.assert(
        fc.property(value, value, (clientId, kid) => {
          const built = lookup.build(db, [clientId, kid]).compile();
          const filled = compiledOn(db, lookup, [clientId, kid]);
          expect(filled.sql).toBe(built.sql);
          expect(filled.parameters).toStrictEqual(built.parameters);
        }),
        { numRuns: 100 },
      );
    });

    it('compiles once per connection and query', () => {
      expect(compiledOn(db, lookup, ['a', 'b']).query).toBe(compiledOn(db, lookup, ['c', 'd']).query);
      expect(compiledOn(db, lookup, ['a', 'b']).query).not.toBe(compiledOn(compileTargets[name === 'sqlite' ? 'postgres' : 'sqlite'].db, lookup, ['a', 'b']).query);
    });

    it('builds per call a query whose values cannot be holes (one repeated), still with the right parameters', () => {
      const [first, second] = [compiledOn(db, upsert, ['k', 5, 1]), compiledOn(db, upsert, ['k', 7, 2])];
      expect(first.query).not.toBe(second.query);
      expect(second.parameters).toStrictEqual(upsert.build(db, ['k', 7, 2]).compile().parameters);
    });
  });
});
