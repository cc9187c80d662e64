/**
 * `book-contended`: `--contenders` connections (default 100) all `POST /v1/bookings` for ONE
 * product, so every request queues for the same product lock. Request n books one unit over
 * `[t0 + n min, t0 + n min + 11 min)`: each booking overlaps the ten before and the ten after
 * it, and the product has 10 units, so capacity binds all the time. In arrival order about
 * one request in eleven finds its first minute full (409 `capacity_exceeded`, by design and
 * not counted as a failure); the rest are the sustained successful bookings per second the
 * target is about (`bookingTargets`, bench/report.ts). The slots keep counting up across
 * the warm-up, the measurement and every round, so no request repeats an earlier one.
 *
 * The catalogue of the availability scenarios (100 000 bookings of 1 000 other products)
 * is seeded first, so the check runs against a bookings table of realistic size.
 *
 * Afterwards the invariant is checked from outside the service: every booking of the
 * product is read from the database and a sweep (and, up to 20 000 bookings, a brute-force
 * count at every start) must find no instant where the units held exceed `total_items`.
 * A violation fails the scenario.
 */
import { getResource } from '../../src/registry/index.js';
import { bookingTenant } from '../booking-tenant.js';
import { insertProducts } from '../catalogue.js';
import { runAgainstService } from '../harness.js';
import { catalogue } from './availability.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { peakHeld, peakHeldBruteForce } from '../overlap.js';
import type { HeldInterval } from '../overlap.js';
import { seedOnce, withStorage } from '../seed-storage.js';

/** Units of the contended product. */
export const contendedUnits = 10;
/** Minutes each booking lasts (one more than the units: capacity runs out once every eleven bookings). */
export const contendedMinutes = 11;
const contendedStart = Date.UTC(2030, 0, 1);
const minuteMs = 60_000;
/** Above this many bookings the O(n²) brute-force check is left out (the sweep still runs). */
const bruteForceLimit = 20_000;

/** The request body of slot `n`. */
export function contendedBooking(productId: string, n: number): Record<string, unknown> {
  const start = contendedStart + n * minuteMs;
  return { product_id: productId, start_time: new Date(start).toISOString(), end_time: new Date(start + contendedMinutes * minuteMs).toISOString(), quantity: 1, reference: `BC-${n}` };
}

interface Contended {
  readonly productId: string;
  /** The next slot to book; shared by every phase and round of the run. */
  next: number;
}

export interface InvariantCheck {
  readonly bookings: number;
  readonly holding: number;
  /** `held` bookings (orders' holds) among `holding`, unexpired when read. */
  readonly heldUnexpired: number;
  /** `held` bookings whose `expires_at` had passed when read, and `expired` ones: they hold nothing. */
  readonly heldExpired: number;
  readonly peak: number;
  readonly bruteForcePeak: number | null;
}

/**
 * Reads every booking of `productId` and checks that no instant holds more than `totalItems`
 * units; throws otherwise (`scenario` names the check in the error). Holding bookings are
 * `active` and `completed` ones and, as the service counts them (src/booking/holdings.ts),
 * `held` ones whose `expires_at` is after the moment of the read.
 */
export async function checkInvariant(ctx: BenchContext, productId: string, totalItems: number, scenario = 'book-contended'): Promise<InvariantCheck> {
  return withStorage(ctx.config, async (database) => {
    const { dialect } = database;
    const now = Date.now();
    const rows = await database.db
      .selectFrom(getResource('bookings').table)
      .select(['start_time', 'end_time', 'quantity', 'status', 'expires_at'])
      .where('product_id', '=', productId)
      .where('deleted_at', 'is', null)
      .execute();
    const at = (value: unknown) => Date.parse(String(dialect.fromDb('timestamp', value)));
    const unexpiredHold = (row: (typeof rows)[number]) => row.status === 'held' && row.expires_at !== null && at(row.expires_at) > now;
    const holding = rows.filter((row) => row.status === 'active' || row.status === 'completed' || unexpiredHold(row));
    const held: HeldInterval[] = holding.map((row) => ({ start: at(row.start_time), end: at(row.end_time), quantity: Number(row.quantity) }));
    if (held.some((h) => !Number.isFinite(h.start) || !Number.isFinite(h.end))) throw new Error(`${scenario}: a booking of the product has an unreadable start or end time`);
    const peak = peakHeld(held);
    const brute = held.length <= bruteForceLimit ? peakHeldBruteForce(held) : null;
    const worst = Math.max(peak.held, brute?.held ?? 0);
    if (worst > totalItems || (brute && brute.held !== peak.held)) {
      const when = new Date(worst === peak.held ? peak.at : (brute?.at ?? Number.NaN)).toISOString();
      throw new Error(
        `${scenario}: INVARIANT VIOLATED: ${worst} units of ${totalItems} held at ${when} (sweep ${peak.held}, brute force ${brute?.held ?? 'skipped'}; ${held.length} holding bookings of ${rows.length})`,
      );
    }
    const heldUnexpired = holding.filter(unexpiredHold).length;
    const heldExpired = rows.filter((row) => row.status === 'expired' || (row.status === 'held' && !unexpiredHold(row))).length;
    return { bookings: rows.length, holding: held.length, heldUnexpired, heldExpired, peak: peak.held, bruteForcePeak: brute?.held ?? null };
  });
}

export async function bookContendedScenario(ctx: BenchContext): Promise<ScenarioResult> {
  // The capacity check runs against a bookings table of realistic size: the catalogue's 100 000.
  await catalogue(ctx);
  const tenant = await bookingTenant(ctx);
  const contended: Contended = await seedOnce(ctx, 'book-contended', () =>
    withStorage(ctx.config, async (database) => {
      const { ids } = await insertProducts(database, tenant.tenantId, 1, () => ({
        name: 'Contended hall',
        address: 'Praça do Comércio 1',
        city: 'Lisboa (contended)',
        zip_code: '1100-148',
        total_items: contendedUnits,
        is_published: true,
      }));
      return { productId: ids[0] ?? '', next: 0 };
    }),
  );
  const connections = ctx.options.contenders;
  const result = await runAgainstService(ctx, 'book-contended', async () => {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, tenant.client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // One slot in eleven is full by design: skip such slots until one books (a 201 proves the path works).
    for (let tries = 0; ; tries += 1) {
      const probe = await fetch(`${ctx.origin}/v1/bookings`, { method: 'POST', headers, body: JSON.stringify(contendedBooking(contended.productId, contended.next++)) });
      const text = await probe.text();
      if (probe.status === 201) break;
      if (probe.status !== 409 || tries >= contendedMinutes) throw new Error(`preflight POST /v1/bookings: expected 201, got ${probe.status}: ${text.slice(0, 500)}`);
    }
    return {
      spec: {
        origin: ctx.origin,
        connections,
        request: { method: 'POST', path: '/v1/bookings', headers, setupRequest: (request) => ({ ...request, body: JSON.stringify(contendedBooking(contended.productId, contended.next++)) }) },
      },
      extra: { contenders: connections, totalItems: contendedUnits, bookingMinutes: contendedMinutes, sqliteAnalyzed: ctx.options.database === 'sqlite' ? ctx.options.analyze : null },
    };
  });
  const check = await checkInvariant(ctx, contended.productId, contendedUnits);
  const statuses = result.phase?.statusCodes ?? {};
  return {
    ...result,
    extra: {
      ...result.extra,
      capacityRefusals: statuses['409'] ?? 0,
      requestsPerSecond: result.phase ? Math.round(((result.phase.ok + result.phase.non2xx) / result.phase.seconds) * 10) / 10 : null,
      bookingsInDatabase: check.bookings,
      holdingBookings: check.holding,
      peakHeld: check.peak,
      bruteForcePeak: check.bruteForcePeak,
      invariant: 'held',
    },
  };
}
