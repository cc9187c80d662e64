import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../core/clock.js';
import type { Database } from '../db/dialect.js';
import { JobLeases } from './job-lease.js';

/** A background job run every `everyMs` by the one instance holding its lease. */
export interface LeasedJob {
  /** The lease's name, shared by every instance. */
  readonly name: string;
  readonly everyMs: number;
  /** One run; its failures are logged, and the next interval tries again. */
  run(): Promise<void>;
}

/**
 * Starts `job`: every `everyMs` this instance tries to take the job's lease for (almost) the
 * interval, and runs it only if it did, so one instance runs it per interval; a run never
 * overlaps the previous one here. Returns a stop function for graceful shutdown that waits
 * for a run under way.
 */
export function startLeasedJob(database: Database, clock: Clock, log: FastifyBaseLogger, job: LeasedJob): () => Promise<void> {
  const leases = new JobLeases(database);
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = (async () => {
      try {
        // A little shorter than the interval, so this instance's next tick is not locked out by its own lease.
        if (await leases.acquire(job.name, clock.now(), clock.now() + job.everyMs - 1_000)) await job.run();
      } catch (error) {
        log.error({ err: error, job: job.name }, `${job.name} failed`);
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, job.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
