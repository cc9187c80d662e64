import { randomUUID } from 'node:crypto';
import type { Database } from '../db/dialect.js';

/**
 * Leases that let one instance at a time run a background job. Taking a lease is one
 * statement — an insert that, on conflict, takes the row over only once the previous lease
 * has expired — so the database decides between instances starting a run together. A
 * lease is not released early: it spans the job's interval, so the job runs once per
 * interval across the deployment, whichever instance wins.
 */
export class JobLeases {
  /** This process's identity as a lease holder. */
  readonly holder = randomUUID();

  constructor(private readonly database: Database) {}

  /** Whether this instance now holds `job` until `until` (ms since the epoch). */
  async acquire(job: string, now: number, until: number): Promise<boolean> {
    const result = await this.database.db
      .insertInto('job_leases')
      .values({ job, holder: this.holder, expires_at: until })
      .onConflict((conflict) => conflict.column('job').doUpdateSet({ holder: this.holder, expires_at: until }).where('job_leases.expires_at', '<=', now))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }
}
