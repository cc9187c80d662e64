import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { getResource, resources } from '../../../src/registry/index.js';
import type { FieldDef } from '../../../src/registry/types.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * The row types `defineResource` derives (`RowOf`, src/registry/types.ts) are what a query
 * on a resource table is checked against by `tsc`. These tests hold the derivation to what
 * each database really returns, so a type cannot promise a string where a row has null.
 */

/** What `RowOf` says a column of `field` holds: its JS types, and whether null may appear. */
function declared(field: FieldDef): { types: readonly string[]; nullable: boolean } {
  const nullable = field.nullable === true || !(field.required === true || field.default !== undefined);
  switch (field.type) {
    case 'string':
    case 'reference':
    case 'timestamp':
      return { types: ['string'], nullable };
    case 'integer':
    case 'number':
      return { types: ['number'], nullable };
    case 'boolean':
      return { types: ['boolean', 'number'], nullable };
    case 'string_list':
    case 'object':
      return { types: ['string', 'object'], nullable };
  }
}

const common = { _id: false, tenant_id: true, created_at: false, updated_at: false, deleted_at: true, etag: false } as const;

describe.each(dialects)('resource row types on %s', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(dialect);
    const token = await h.bearer(await h.tenant('Rows'), [...crud('products'), ...crud('bookings'), ...crud('orders'), ...crud('service-charges')]);
    const post = async (url: string, body: Record<string, unknown>) => {
      const reply = await h.request({ method: 'POST', url, token, body });
      expect(reply.statusCode, reply.body).toBe(201);
      return String(reply.json()._id);
    };
    const priced = await post('/v1/products', { name: 'Flat', address: 'A 1', city: 'Berlin', zip_code: '10115', total_items: 2, price: 90, time_zone: 'Europe/Berlin' });
    const plain = await post('/v1/products', { name: 'Desk', address: 'B 2', city: 'Paris', zip_code: '75001', total_items: 1 });
    await post('/v1/service-charges', { product_id: priced, amount: 10, basis: 'per_unit_per_period', name: 'Cleaning' });
    await post('/v1/bookings', { product_id: plain, start_time: '2031-01-01T10:00:00Z', end_time: '2031-01-02T10:00:00Z' });
    await post('/v1/orders', { product_id: priced, start_time: '2031-02-01T15:00:00Z', end_time: '2031-02-03T10:00:00Z' });
    await post('/v1/orders', { product_id: plain, start_time: '2031-03-01T10:00:00Z', end_time: '2031-03-02T10:00:00Z', total_amount: 12.5 });
  });
  afterAll(() => h.close());

  it.each(resources.map((resource) => [resource.name, resource] as const))('every stored %s row has the types its declaration derives', async (_name, resource) => {
    const rows = await h.database.db.selectFrom(resource.table).selectAll().execute();
    for (const row of rows) {
      for (const [column, nullable] of Object.entries(common)) {
        if (column === 'deleted_at' && !resource.softDelete) continue;
        const value = row[column];
        if (value === null) expect(nullable, `${resource.name}.${column} is null`).toBe(true);
        else expect(typeof value, `${resource.name}.${column}`).toBe('string');
      }
      for (const [name, field] of Object.entries(resource.fields)) {
        if (name in common || field.computed === true || field.writeOnly === true) continue;
        const { types, nullable } = declared(field);
        const value = row[name];
        if (value === null) expect(nullable, `${resource.name}.${name} is null in a stored row`).toBe(true);
        else expect(types, `${resource.name}.${name} holds ${JSON.stringify(value)}`).toContain(typeof value);
        if (value !== null && field.enum && field.type === 'string') expect(field.enum).toContain(value);
      }
    }
  });

  it('stores the rows the checks above read', async () => {
    for (const table of ['products', 'bookings', 'orders', 'service_charges']) {
      const rows = await h.database.db.selectFrom(table).select('_id').execute();
      expect(rows.length, table).toBeGreaterThan(0);
    }
  });
});

/**
 * Compiled by `npm run typecheck` (tsc covers test/), never called: a misspelt column or a
 * value of the wrong type on a resource query must not compile (`@ts-expect-error` fails
 * the type-check when the line compiles).
 */
export function misspeltColumnsDoNotCompile(queries: ScopedQueries): unknown[] {
  const bookings = getResource('bookings');
  const orders = getResource('orders');
  const products = getResource('products');
  return [
    // @ts-expect-error `prodct_id` is no column of bookings
    queries.scoped(bookings).select('prodct_id'),
    // @ts-expect-error orders have no `quantty`
    queries.scoped(orders).where('quantty', '=', 1),
    // @ts-expect-error a product's `total_items` is a number
    queries.scoped(products).where('total_items', '=', 'ten'),
    // @ts-expect-error a booking's status is one of its enum
    queries.scoped(bookings).where('status', '=', 'booked'),
    queries.scoped(bookings).select(['product_id', 'quantity', 'expires_at']).where('status', '=', 'held'),
  ];
}
