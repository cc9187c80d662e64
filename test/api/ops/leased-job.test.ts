import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import type { Database } from '../../../src/db/dialect.js';
import { startLeasedJob } from '../../../src/services/leased-job.js';
import { dialects, freshDatabase } from '../../support/databases.js';

const silent = {
  info: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  fatal: () => undefined,
  child: () => silent,
  level: 'silent',
  silent: () => undefined,
} as never;

/** A leased job (the order expiry sweep, the calendar schedule) runs once per interval however many instances start it. */
describe.each(dialects)('a leased job on %s', (dialect) => {
  let database: Database;

  beforeAll(async () => {
    database = await freshDatabase(dialect);
  });
  afterAll(() => database.close());

  it('runs on one of two instances per interval, and a stop waits for a run under way', async () => {
    const runs: string[] = [];
    const job = (instance: string) => ({
      name: `test-job-${dialect}`,
      everyMs: 1_500,
      run: async () => {
        runs.push(instance);
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
    });
    const stops = [startLeasedJob(database, systemClock, silent, job('a')), startLeasedJob(database, systemClock, silent, job('b'))];
    await new Promise((resolve) => setTimeout(resolve, 3_300));
    await Promise.all(stops.map((stop) => stop()));
    // Two intervals: two ticks on each instance, and one run per interval.
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.length).toBeLessThanOrEqual(2);
  });
});
