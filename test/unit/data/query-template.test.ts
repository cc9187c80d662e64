import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/core/principal.js';
import { asSystem } from '../../../src/core/principal.js';
import { QueryTemplate } from '../../../src/data/query-template.js';
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
});
