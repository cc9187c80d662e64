import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { JobLeases } from '../../../src/services/job-lease.js';
import { dialects, freshDatabase } from '../../support/databases.js';

describe.each(dialects)('background job leases on %s', (dialect) => {
  let database: Database;
  afterAll(() => database.close());

  it('one instance runs a job per interval, whichever asks first; the next interval is open again', async () => {
    database = await freshDatabase(dialect);
    const instances = [new JobLeases(database), new JobLeases(database), new JobLeases(database)];
    const now = 1_800_000_000_000;
    const won = await Promise.all(instances.map((leases) => leases.acquire('retention', now, now + 60_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    // Within the interval nobody takes it, not even the holder.
    expect(await Promise.all(instances.map((leases) => leases.acquire('retention', now + 59_999, now + 119_999)))).toEqual([false, false, false]);
    // Another job is independent.
    expect(await instances[1]!.acquire('other', now, now + 60_000)).toBe(true);
    const next = await Promise.all(instances.map((leases) => leases.acquire('retention', now + 60_000, now + 120_000)));
    expect(next.filter(Boolean)).toHaveLength(1);
  });
});
