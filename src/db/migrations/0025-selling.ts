import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { Db, SqlDialect } from '../dialect.js';
import { addColumns, createFrozenTable, createIndex, tenantIndexName } from '../migration-kit.js';

/** The holdings index with `expires_at`, so a `held` booking's expiry is read from the index too. */
const holdingsColumns: readonly string[] = Object.freeze(['product_id', 'start_time', 'end_time', 'status', 'quantity', 'expires_at', '_id', 'deleted_at']);

/**
 * Selling a stay (docs/selling.md): prices on products, the basis of service charges, orders
 * that hold units through a `held` booking until `expires_at`, product rates, and quotes kept
 * for 15 minutes where every instance reads them.
 *
 * - Existing products get no price (not for sale: plain bookings work as before) and the
 *   currency of their tenant (EUR where it has none), which their service charges and orders
 *   already used.
 * - Existing service charges keep their meaning: `per_order`.
 * - Existing orders keep their data: no booking, no hold, no lines.
 * - The holdings index is rebuilt with `expires_at` (covering, as 0019 made it).
 */
export function sellingMigration(dialect: SqlDialect): Migration {
  return {
    async up(db: Db) {
      await addColumns(db, dialect, 'products', [
        ['price', 'number'],
        ['currency', 'string'],
      ]);
      await db.schema
        .alterTable('products')
        .addColumn('price_unit', sql.raw(dialect.columnType('string')), (c) => c.defaultTo('night'))
        .execute();
      await sql`update products set currency = coalesce((select tenants.currency from tenants where tenants._id = products.tenant_id), 'EUR')`.execute(db);
      await createIndex(db, dialect, tenantIndexName('products', 'price'), 'products', ['tenant_id', 'price'], false);
      await db.schema
        .alterTable('service_charges')
        .addColumn('basis', sql.raw(dialect.columnType('string')), (c) => c.defaultTo('per_order'))
        .execute();
      await addColumns(db, dialect, 'orders', [
        ['quantity', 'integer'],
        ['lines', 'object'],
        ['expires_at', 'timestamp'],
        ['booking_id', 'string'],
        ['paid_at', 'timestamp'],
      ]);
      for (const column of ['expires_at', 'paid_at']) await createIndex(db, dialect, tenantIndexName('orders', column), 'orders', ['tenant_id', column], false);
      await addColumns(db, dialect, 'bookings', [
        ['order_id', 'string'],
        ['expires_at', 'timestamp'],
      ]);
      await createIndex(db, dialect, tenantIndexName('bookings', 'expires_at'), 'bookings', ['tenant_id', 'expires_at'], false);
      await sql`drop index if exists ${sql.id('bookings_holdings_idx')}`.execute(db);
      await createIndex(db, dialect, 'bookings_holdings_idx', 'bookings', holdingsColumns, true);
      // The expiry sweep's scan: active orders by expiry, of every tenant.
      await createIndex(db, dialect, 'orders_expiry_idx', 'orders', ['status', 'expires_at'], true);
      await createFrozenTable(db, dialect, {
        table: 'product_rates',
        softDelete: true,
        path: false,
        columns: [
          ['_id', 'string'],
          ['tenant_id', 'string'],
          ['created_at', 'timestamp'],
          ['updated_at', 'timestamp'],
          ['product_id', 'string'],
          ['from', 'string'],
          ['to', 'string'],
          ['price', 'number'],
          ['min_stay', 'integer'],
          ['max_stay', 'integer'],
          ['closed', 'boolean'],
          ['closed_to_arrival', 'boolean'],
        ],
        tenantIndexes: ['created_at', 'updated_at', 'from', 'to'],
      });
      await createIndex(db, dialect, 'product_rates_product_idx', 'product_rates', ['product_id', 'from'], true);
      await db.schema
        .createTable('quotes')
        .addColumn('quote_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('quotes_expires_idx').on('quotes').column('expires_at').execute();
    },
  };
}
