/**
 * `erase-under-load` (issue 52 §5, docs/gdpr.md "Erasure"): erasing a user with 10 000
 * bookings does not stall the writers. `--connections` loops book stays of the priced
 * products (the `book` scenario's requests, client and products), in two phases against one
 * service:
 *
 * - `erase-under-load-quiet`: the writers alone for `--duration` seconds (after `--warmup`);
 * - `erase-under-load`: the same writers while `POST /v1/users/{id}/erase` runs, from the
 *   erasure's request to its answer: the p99 of the bookings sent meanwhile, beside the
 *   quiet phase's.
 *
 * Target (bench/report.ts, judged on SQLite, where the erasure and the writers share the one
 * writer; PostgreSQL locks only the user's rows): the writers' p99 during the erasure at
 * most 3× the quiet one. The erasure commits a batch of records at a time, and a batch costs
 * about what a few booking creates do (docs/gdpr.md "Erasure"), so a write waits for at most
 * one batch besides the writes ahead of it; a single transaction for all 10 000 would make
 * the p99 the whole erasure.
 *
 * The user (a guest with a name and an address) and its bookings, each with a personal note,
 * are seeded in bulk before each round's service starts, a new user per round. The erasure's
 * answer must count the 10 000 bookings, and afterwards no booking of the user may hold its
 * note, or the scenario fails.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOperatorServices } from '../../cli/operator-services.js';
import { roleCapabilities } from '../../src/actions/roles.js';
import { getResource } from '../../src/registry/index.js';
import { bookingTenant } from '../booking-tenant.js';
import { seedUserWithBookings } from '../bulk-seed.js';
import { insertProducts } from '../catalogue.js';
import type { BenchClient } from '../fixtures.js';
import { startService } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { es256Key } from '../jws.js';
import { fetchToken } from '../oauth-requests.js';
import { sellingClient, sellingProducts, stayPlanner } from '../selling.js';
import type { PlannedStay } from '../selling.js';
import { seedOnce, withStorage } from '../seed-storage.js';
import { loadFor, serviceCpu, startLoad, timedResult } from './timed-load.js';

/** Bookings of the erased user. */
export const erasedBookings = 10_000;

/** A client of the booking tenant that may erase its users: the grant ceiling asks for every capability of a guest's role. */
function erasureClient(ctx: BenchContext): Promise<BenchClient> {
  return seedOnce(ctx, 'erase-under-load-client', async () => {
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-erasure.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await (
        await buildOperatorServices(ctx.config, database)
      ).createClient({
        name: 'bench erasure',
        tenant: tenant.tenantId,
        capabilities: [...roleCapabilities.guest, 'users:read', 'users:erase'].join(' '),
        publicKeyFile: keyFile,
        kid: 'bench-erasure',
        ipAllow: undefined,
      });
      return { clientId: String(created._id), kid: String(created.kid), key };
    });
  });
}

interface ErasureRun {
  /** The product the erased users' bookings are of. */
  readonly productId: string;
  /** The writers' stays, one sequence over every round. */
  readonly next: () => PlannedStay;
  rounds: number;
}

function erasureRun(ctx: BenchContext, productIds: readonly string[]): Promise<ErasureRun> {
  return seedOnce(ctx, 'erase-under-load', async () => {
    const tenant = await bookingTenant(ctx);
    const productId = await withStorage(ctx.config, async (database) => {
      const { ids } = await insertProducts(database, tenant.tenantId, 1, () => ({
        name: 'Erasure archive',
        address: 'Rua da Prata 1',
        city: 'Lisboa (erasure)',
        zip_code: '1100-420',
        total_items: 1,
      }));
      return ids[0] ?? '';
    });
    return { productId, next: stayPlanner(productIds, 505), rounds: 0 };
  });
}

/** Bookings of `userId` whose notes still hold `note` (read from storage, the service stopped). */
function notesLeft(ctx: BenchContext, userId: string, note: string): Promise<number> {
  return withStorage(ctx.config, async (database) => {
    const row = await database.db
      .selectFrom(getResource('bookings').table)
      .select((eb) => eb.fn.countAll<number>().as('left'))
      .where('user_id', '=', userId)
      .where('notes', 'like', `${note}%`)
      .executeTakeFirst();
    return Number(row?.left ?? 0);
  });
}

export async function eraseUnderLoadScenario(ctx: BenchContext): Promise<ScenarioResult[]> {
  const products = await sellingProducts(ctx);
  const writer = await sellingClient(ctx);
  const eraser = await erasureClient(ctx);
  const tenant = await bookingTenant(ctx);
  const run = await erasureRun(ctx, products.productIds);
  run.rounds += 1;
  const seedStarted = performance.now();
  const user = await withStorage(ctx.config, (database) => seedUserWithBookings(database, tenant.tenantId, [run.productId], erasedBookings, `erased-${run.rounds}`));
  const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
  const { connections, warmup, duration } = ctx.options;
  const server = await startService(ctx);
  let results: ScenarioResult[];
  try {
    const headers = { authorization: `Bearer ${await fetchToken(ctx.origin, ctx.tokenEndpoint, writer)}`, 'content-type': 'application/json' };
    const book = () => fetch(`${ctx.origin}/v1/bookings`, { method: 'POST', headers, body: JSON.stringify(run.next().body) });
    // A stay that meets a full night answers 409 (rare): one booking must go through before the load.
    for (let tries = 0; ; tries += 1) {
      const probe = await book();
      const text = await probe.text();
      if (probe.status === 201) break;
      if (probe.status !== 409 || tries >= 10) throw new Error(`erase-under-load: preflight POST /v1/bookings: expected 201, got ${probe.status}: ${text.slice(0, 500)}`);
    }
    if (warmup > 0) await loadFor(connections, warmup, book);
    const before = serviceCpu(server.pid);
    const quiet = timedResult('erase-under-load-quiet', await loadFor(connections, duration, book), 201, duration, { before, after: serviceCpu(server.pid) });

    const eraseToken = await fetchToken(ctx.origin, ctx.tokenEndpoint, eraser);
    const writers = startLoad(connections, book);
    const started = performance.now();
    const erased = await fetch(`${ctx.origin}/v1/users/${user.userId}/erase`, { method: 'POST', headers: { authorization: `Bearer ${eraseToken}` } });
    const answer = await erased.text();
    const ended = performance.now();
    const answers = await writers.stop();
    const counted = erased.status === 200 ? (JSON.parse(answer) as { records?: { bookings?: number } }).records?.bookings : undefined;
    if (counted !== erasedBookings) throw new Error(`erase-under-load: the erasure answered ${erased.status}, expected 200 counting ${erasedBookings} bookings: ${answer.slice(0, 500)}`);
    const during = answers.filter((a) => a.sentAt >= started && a.sentAt < ended);
    const seconds = (ended - started) / 1000;
    results = [
      quiet,
      // No CPU per write here: the erasure's own would be shared out among the writes.
      timedResult('erase-under-load', during, 201, seconds, { before: null, after: null }, { erasureSeconds: Math.round(seconds * 100) / 100, erasedBookings, quietP99: quiet.p99, seedSeconds }),
    ];
  } finally {
    await server.stop();
  }
  const left = await notesLeft(ctx, user.userId, user.note);
  if (left > 0) throw new Error(`erase-under-load: ${left} bookings of the erased user still hold its note`);
  return results;
}
