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

/** One instance's share of a leased job: a tick runs it if this instance takes the interval's lease. */
export interface LeasedRunner {
  /** Takes the lease and runs the job if no run is under way here; resolves when the tick is done. */
  tick(): Promise<void>;
  /** Resolves once no run is under way here. */
  idle(): Promise<void>;
}

/**
 * The ticks of `job` on this instance: each tries to take the job's lease for (almost) the
 * interval and runs the job only if it did, so one instance runs it per interval; a run never
 * overlaps the previous one here, and a failure is logged (the next interval tries again).
 */
export function leasedRunner(database: Database, clock: Clock, log: FastifyBaseLogger, job: LeasedJob): LeasedRunner {
  const leases = new JobLeases(database);
  let running: Promise<void> | undefined;
  return {
    tick() {
      running ??= (async () => {
        try {
          // A little shorter than the interval, so this instance's next tick is not locked out by its own lease.
          if (await leases.acquire(job.name, clock.now(), clock.now() + job.everyMs - 1_000)) await job.run();
        } catch (error) {
          log.error({ err: error, job: job.name }, `${job.name} failed`);
        } finally {
          running = undefined;
        }
      })();
      return running;
    },
    async idle() {
      await running;
    },
  };
}

/**
 * Starts `job`: a {@link leasedRunner} ticked every `everyMs`. Returns a stop function for
 * graceful shutdown that waits for a run under way.
 */
export function startLeasedJob(database: Database, clock: Clock, log: FastifyBaseLogger, job: LeasedJob): () => Promise<void> {
  const runner = leasedRunner(database, clock, log, job);
  const timer = setInterval(() => void runner.tick(), job.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await runner.idle();
  };
}
