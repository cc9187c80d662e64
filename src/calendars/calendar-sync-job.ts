import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import { asSystem } from '../core/principal.js';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { startLeasedJob } from '../services/leased-job.js';
import type { CalendarSync } from './import-sync.js';

/** How often the job looks for imports due: often enough that a new interval is kept within a minute. */
const tickMs = 30_000;
/** Imports synced per tick at most, one after another: a slow feed delays the rest, never the service. */
const perTick = 50;

/**
 * Syncs every calendar import once per `intervalSeconds` (docs/calendars.md "Schedule"), on
 * the one instance holding the tick's lease: each tick takes the imports whose last sync is
 * an interval old (never-synced first) and syncs them one by one. Returns what one tick did.
 */
export async function syncDueImports(
  database: Database,
  clock: Clock,
  sync: CalendarSync,
  intervalSeconds: number,
  onError: (importId: string, error: unknown) => void = () => undefined,
  budgetMs = tickMs / 2,
): Promise<number> {
  const system = new ScopedQueries(database.db, database.dialect, asSystem());
  const due = new Date(clock.now() - intervalSeconds * 1000).toISOString();
  const rows = await system
    .scoped(calendarImports)
    .select('_id')
    .where((eb) => eb.or([eb('last_synced_at', 'is', null), eb('last_synced_at', '<=', database.dialect.toDb('timestamp', due) as string)]))
    // Never-synced imports first on both databases (PostgreSQL sorts nulls last).
    .orderBy((eb) => eb.case().when('last_synced_at', 'is', null).then(0).else(1).end())
    .orderBy('last_synced_at')
    .orderBy('_id')
    .limit(perTick)
    .execute();
  const started = Date.now();
  let synced = 0;
  for (const { _id } of rows) {
    // A tick stays within its lease: what is left is due again at the next one.
    if (Date.now() - started > budgetMs) break;
    try {
      if (await sync.sync(String(_id))) synced += 1;
    } catch (error) {
      // One import's fault (a database error) must not stall the others behind it.
      onError(String(_id), error);
    }
  }
  return synced;
}

/** Starts the schedule; 0 disables it. Returns a stop function for graceful shutdown. */
export function startCalendarSyncJob(database: Database, clock: Clock, sync: CalendarSync, intervalSeconds: number, log: FastifyBaseLogger): () => Promise<void> {
  if (intervalSeconds <= 0) {
    log.info('calendar import schedule disabled (CALENDAR_SYNC_SECONDS=0)');
    return async () => undefined;
  }
  const every = Math.min(tickMs, intervalSeconds * 1000);
  return startLeasedJob(database, clock, log, {
    name: 'calendar-sync',
    everyMs: every,
    run: async () => {
      const synced = await syncDueImports(database, clock, sync, intervalSeconds, (importId, err) => log.error({ err, importId }, 'calendar import sync failed'), every / 2);
      if (synced > 0) log.info({ synced }, 'calendar imports synced');
    },
  });
}
