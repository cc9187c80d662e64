/**
 * `npx tsx bench/explain-booking-queries.ts` (not part of `npm run bench`): the plans and
 * times of the booking core's queries over the availability catalogue (1 000 products,
 * 100 000 bookings) plus 5 000 bookings of one contended product, on a fresh SQLite file,
 * or with `DATABASE_URL` on a throwaway PostgreSQL database. For each query: `EXPLAIN QUERY
 * PLAN` (SQLite) or `EXPLAIN (ANALYZE, BUFFERS)` (PostgreSQL) and the median of 20 runs, on
 * SQLite both without statistics (as the service leaves the file) and after `ANALYZE`. The
 * holdings queries are built by `holdingsQuery` (src/booking/holdings.ts), the very builder
 * `holdingsOf` runs, with the widest look-back (a product with no recorded span); the
 * conflicts of a 409 are the same query under the caller's tenant scope, as
 * `readableConflicts` (src/booking/capacity.ts) runs it. On PostgreSQL each query is also
 * run 2 000 times as the service sends it (an unnamed statement, parsed and planned at every
 * execution) and as a named prepared statement (planned once per connection), reporting
 * the server process's CPU per execution where it runs on this machine (/proc). See
 * BENCHMARKS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { buildOperatorServices } from '../cli/operator-services.js';
import { maxBookingMs } from '../src/booking/booking-spans.js';
import { holdingsQuery } from '../src/booking/holdings.js';
import { asSystem } from '../src/core/principal.js';
import { ScopedQueries } from '../src/data/scoped-queries.js';
import { loadConfig } from '../src/config/config.js';
import type { Database } from '../src/db/dialect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open-database.js';
import { insertRows } from './bulk-seed.js';
import { insertProducts, seedCatalogue } from './catalogue.js';
import { createThrowawayDatabase } from './postgres-database.js';
import { contendedBooking, contendedUnits } from './scenarios/book-contended.js';

const contendedBookings = 5_000;

async function report(database: Database, name: string, query: CompiledQuery): Promise<void> {
  const postgres = database.dialect.name === 'postgres';
  const plan = await database.db.executeQuery(CompiledQuery.raw(`${postgres ? 'explain (analyze, buffers)' : 'explain query plan'} ${query.sql}`, [...query.parameters]));
  const lines = (plan.rows as Record<string, unknown>[]).map((row) => String(row['QUERY PLAN'] ?? row.detail)).filter((line) => !/^\s*(Buffers|Planning)/.test(line));
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 20; i += 1) {
    const started = performance.now();
    rows = (await database.db.executeQuery(query)).rows.length;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`== ${name}: ${rows} rows, median ${(times[10] ?? Number.NaN).toFixed(3)} ms`);
  for (const line of lines) console.log(`   ${line.length > 240 ? `${line.slice(0, 240)}…` : line}`);
}

/**
 * PostgreSQL: `query` executed `runs` times unnamed (as the service sends every statement)
 * and `runs` times as a named prepared statement, in alternating blocks on one connection
 * after a warm-up of each: CPU of the server process per execution (left out when the
 * server is not on this machine) and wall time.
 */
async function reportPrepared(connectionString: string, query: CompiledQuery, runs = 2_000): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    const serverTicks = (): number => {
      try {
        const fields = (readFileSync(`/proc/${String(pid)}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
        return Number(fields[11]) + Number(fields[12]);
      } catch {
        return Number.NaN;
      }
    };
    const values = [...query.parameters];
    const block = async (named: boolean, count: number) => {
      for (let i = 0; i < count; i += 1) await client.query(named ? { name: 'explained', text: query.sql, values } : { text: query.sql, values });
    };
    await block(false, 50);
    await block(true, 50);
    const totals = { unnamed: { ticks: 0, ms: 0 }, prepared: { ticks: 0, ms: 0 } };
    for (let round = 0; round < 4; round += 1) {
      for (const named of [false, true]) {
        const ticks = serverTicks();
        const started = performance.now();
        await block(named, runs / 4);
        const total = totals[named ? 'prepared' : 'unnamed'];
        total.ms += performance.now() - started;
        total.ticks += serverTicks() - ticks;
      }
    }
    // Clock ticks of 10 ms (USER_HZ 100).
    const perExecution = ({ ticks, ms }: { ticks: number; ms: number }) => `${Number.isNaN(ticks) ? '' : `server CPU ${((ticks * 10) / runs).toFixed(3)} ms, `}wall ${(ms / runs).toFixed(3)} ms`;
    console.log(`   per execution: unnamed ${perExecution(totals.unnamed)}; prepared ${perExecution(totals.prepared)}`);
  } finally {
    await client.end();
  }
}

const url = process.env.DATABASE_URL;
const throwaway = url ? await createThrowawayDatabase(url) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'booking-explain-'));
const config = loadConfig({ DATA_DIR: dir, PORT: '1', PUBLIC_URL: 'http://127.0.0.1:1', ...(throwaway ? { DATABASE_URL: throwaway.url } : {}) });
const database = openDatabase(config);
try {
  await migrateToLatest(database);
  const tenant = await (await buildOperatorServices(config, database)).createTenant({ name: 'explain', level: 'tenant', parent: undefined, currency: 'EUR' });
  const tenantId = String(tenant._id);
  const seeded = await seedCatalogue(database, tenantId);
  const { ids } = await insertProducts(database, tenantId, 1, () => ({ name: 'Contended hall', address: 'a', city: 'x', zip_code: '1', total_items: contendedUnits }));
  const contended = ids[0] ?? '';
  const { dialect } = database;
  const now = new Date().toISOString();
  await insertRows(database, 'bookings', contendedBookings, (n) => {
    const body = contendedBooking(contended, n);
    return {
      _id: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
      tenant_id: tenantId,
      created_at: dialect.toDb('timestamp', now),
      updated_at: dialect.toDb('timestamp', now),
      product_id: contended,
      start_time: dialect.toDb('timestamp', body.start_time),
      end_time: dialect.toDb('timestamp', body.end_time),
      status: 'active',
      quantity: 1,
      etag: 'x',
      deleted_at: null,
    };
  });
  console.log(`${dialect.name}: ${seeded.bookings} catalogue bookings + ${contendedBookings} of one product`);
  const system = new ScopedQueries(database.db, dialect, asSystem());
  const holdings = (productIds: readonly string[], from: number, to: number, queries = system) => holdingsQuery(queries, productIds, from - maxBookingMs, from, to, from).compile();
  // The caller of a refused booking: a client of the tenant, as `readableConflicts` sees it.
  const scope = { nodeId: tenantId, level: 'tenant' as const, path: String(tenant.path) };
  const caller = new ScopedQueries(database.db, dialect, { actorType: 'client', actorId: 'explain', capabilities: new Set(), home: scope, scope, unrestricted: false });
  const next = contendedBooking(contended, contendedBookings);
  const queries: [string, CompiledQuery][] = [
    ['holdings: the contended product (capacity check)', holdings([contended], Date.parse(String(next.start_time)), Date.parse(String(next.end_time)))],
    ['holdings: one product, 31 days', holdings([seeded.productIds[7] ?? ''], Date.UTC(2027, 6, 1), Date.UTC(2027, 7, 1))],
    [
      'holdings: 100 products, 7 days',
      holdings(
        seeded.productIds.filter((_, i) => i % 10 === 0),
        Date.UTC(2027, 6, 5),
        Date.UTC(2027, 6, 12),
      ),
    ],
    ["readableConflicts: the conflicts of a 409, under the caller's scope", holdings([contended], Date.parse(String(next.start_time)), Date.parse(String(next.end_time)), caller)],
  ];
  if (dialect.name === 'postgres') await sql`analyze`.execute(database.db);
  for (const [name, query] of queries) {
    await report(database, dialect.name === 'postgres' ? name : `${name} (no statistics)`, query);
    if (throwaway) await reportPrepared(throwaway.url, query);
  }
  if (dialect.name === 'sqlite') {
    await sql`analyze`.execute(database.db);
    for (const [name, query] of queries) await report(database, `${name} (after ANALYZE)`, query);
  }
} finally {
  await database.close();
  await throwaway?.drop();
  rmSync(dir, { recursive: true, force: true });
}
