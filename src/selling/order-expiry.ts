import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { asSystem } from '../core/principal.js';
import type { RequestContext } from '../core/request-context.js';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { getResource } from '../registry/index.js';
import { startLeasedJob } from '../services/leased-job.js';
import { expireBooking, lockedBookingOf } from './order-booking.js';
import { purgeQuotes } from './quotes.js';

const orders = getResource('orders');
const systemContext: RequestContext = { principal: asSystem(), clientIp: null, requestId: null };
/** Orders expired per batch: each is its own short transaction. */
const batchSize = 200;

/** What one sweep did. */
export interface ExpirySweep {
  readonly expired: number;
  readonly quotesPurged: number;
}

/**
 * Records what time already decided (docs/selling.md "Expiry"): every order still `active`
 * past its `expires_at` becomes `expired`, and its booking `expired`, audited as the system
 * with the event `orders.expired`. Each order is one transaction that locks it and reads it
 * again, so an order paid or cancelled meanwhile is left alone and no order expires twice,
 * however many instances sweep at once. Then forgets the quotes whose 15 minutes are over.
 */
export async function sweepExpiredOrders(database: Database, clock: Clock): Promise<ExpirySweep> {
  const system = new ScopedQueries(database.db, database.dialect, asSystem());
  let expired = 0;
  for (;;) {
    const now = clock.now();
    const due = await system
      .scoped(orders)
      .select('_id')
      .where('status', '=', 'active')
      .where('expires_at', '<=', database.dialect.toDb('timestamp', new Date(now).toISOString()) as string)
      .orderBy('expires_at')
      .limit(batchSize)
      .execute();
    let changed = 0;
    for (const { _id } of due) if (await expireOne(database, clock, _id)) changed += 1;
    expired += changed;
    if (due.length < batchSize || changed === 0) break;
  }
  return { expired, quotesPurged: await purgeQuotes(database.db, clock.now()) };
}

async function expireOne(database: Database, clock: Clock, id: string): Promise<boolean> {
  return runUnitOfWork(database, clock, systemContext, async (unit) => {
    const order = await unit.find(orders, id, { lock: 'update' });
    if (!order || order.status !== 'active' || order.expires_at === null || Date.parse(order.expires_at) > unit.now) return false;
    const booking = await lockedBookingOf(unit, order);
    if (booking) await expireBooking(unit, booking);
    await unit.update(orders, order, order.etag, { status: 'expired' }, { event: 'orders.expired' });
    return true;
  });
}

/**
 * Runs {@link sweepExpiredOrders} every `intervalSeconds` on the one instance holding the
 * interval's lease; 0 disables it (holds still stop counting at `expires_at`: the sweep
 * only records it). Returns a stop function for graceful shutdown.
 */
export function startOrderExpiryJob(database: Database, intervalSeconds: number, clock: Clock, log: FastifyBaseLogger): () => Promise<void> {
  if (intervalSeconds <= 0) {
    log.info('order expiry sweep disabled (ORDER_EXPIRY_SWEEP_SECONDS=0)');
    return async () => undefined;
  }
  return startLeasedJob(database, clock, log, {
    name: 'order-expiry',
    everyMs: intervalSeconds * 1000,
    run: async () => {
      const sweep = await sweepExpiredOrders(database, clock);
      if (sweep.expired > 0 || sweep.quotesPurged > 0) log.info(sweep, 'order expiry sweep: orders expired, quotes forgotten');
    },
  });
}
