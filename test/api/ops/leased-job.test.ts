import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { leasedRunner } from '../../../src/services/leased-job.js';
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

/** A leased job (the order expiry sweep, the calendar schedule) runs once per interval however many instances tick it. */
describe.each(dialects)('a leased job on %s', (dialect) => {
  let database: Database;
  let now = Date.UTC(2030, 0, 1);
  const clock = { now: () => now };

  beforeAll(async () => {
    database = await freshDatabase(dialect);
  });
  afterAll(() => database.close());

  it('runs on one of two instances per interval, and waits for a run under way before it is idle', async () => {
    const runs: string[] = [];
    let finish: () => void = () => undefined;
    const job = (instance: string) => ({
      name: `test-job-${dialect}`,
      everyMs: 60_000,
      run: async () => {
        runs.push(instance);
        await new Promise<void>((resolve) => (finish = resolve));
      },
    });
    const [a, b] = [leasedRunner(database, clock, silent, job('a')), leasedRunner(database, clock, silent, job('b'))];
    // Both instances tick at once: one takes the lease and runs; the other does not.
    const ticks = [a.tick(), b.tick()];
    await expect.poll(() => runs.length).toBe(1);
    let idle = false;
    const idling = (runs[0] === 'a' ? a : b).idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    await Promise.all([...ticks, idling]);
    expect(idle).toBe(true);
    // The same interval: the lease is still held.
    await Promise.all([a.tick(), b.tick()]);
    expect(runs).toHaveLength(1);
    // The next interval: one of them again.
    now += 60_000;
    const next = [a.tick(), b.tick()];
    await expect.poll(() => runs.length).toBe(2);
    finish();
    await Promise.all(next);
    expect(runs).toHaveLength(2);
  });
});
