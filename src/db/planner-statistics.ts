import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './dialect.js';

/**
 * How often the planner's statistics are brought up to date. SQLite's `PRAGMA optimize`
 * costs next to nothing when no table changed much, and a table that grew tenfold is
 * analysed from a bounded sample (`analysis_limit`), so a short interval is cheap.
 */
export const statisticsIntervalMs = 5 * 60_000;

/**
 * Keeps the query planner's statistics current while the service runs (SQLite's advice for
 * long-lived connections: `PRAGMA optimize` when it opens, which migrations do, then
 * periodically). A database that starts empty has no statistics, and without them SQLite
 * guesses that a tenant's index finds ten rows: a list filtered by ids (`_id__in`) then
 * walks every record of the tenant. So statistics follow growth within minutes, not at the
 * next restart. On PostgreSQL the dialect's refresh does nothing: autovacuum keeps its own.
 * Runs never overlap; a failure is logged and retried next time. Returns a stop function.
 */
export function keepPlannerStatisticsCurrent(database: Database, log: FastifyBaseLogger, intervalMs = statisticsIntervalMs): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= database.dialect
      .refreshStatistics(database.db)
      .catch((error: unknown) => log.error({ err: error }, 'planner statistics could not be refreshed'))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
