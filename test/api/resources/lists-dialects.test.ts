import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../../src/db/dialect.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { itemIds, listResources, seedLists } from '../../support/list-fixtures.js';
import type { Seeded } from '../../support/list-fixtures.js';
import { steppingClock } from '../../support/stepping-clock.js';

interface Instance {
  readonly h: Harness;
  readonly token: string;
  /** Record id → `resource#index`, the same label on every database. */
  readonly labels: ReadonlyMap<string, string>;
}

function labelsOf(seed: Seeded): Map<string, string> {
  const labels = new Map<string, string>();
  const groups = { products: seed.products, bookings: seed.bookings, orders: seed.orders, 'service-charges': seed.serviceCharges, subscriptions: seed.subscriptions };
  for (const [resource, docs] of Object.entries(groups)) docs.forEach((doc, index) => labels.set(doc._id, `${resource}#${index}`));
  return labels;
}

const w = (filter: unknown): string => `where=${encodeURIComponent(JSON.stringify(filter))}`;

/** Queries whose answers (ids and their order) must not depend on the database. */
const queries: readonly string[] = [
  '/v1/products/?per_page=100',
  '/v1/products/?sort=city,-total_items&per_page=100',
  '/v1/products/?sort=name&per_page=100',
  '/v1/products/?sort=-is_published,status,zip_code&per_page=7&page=3',
  `/v1/products/?${w({ name: { $regex: 'LO', $options: 'i' } })}&sort=name`,
  `/v1/products/?${w({ name: { $regex: '^[A-Z][a-z]+ \\d[05]$' } })}`,
  `/v1/products/?${w({ $or: [{ country: { $ne: 'DE' } }, { total_items: { $nin: [1, 2, 3] } }] })}&sort=total_items`,
  `/v1/products/?${w({ $not: { $or: [{ city: 'Berlin' }, { is_published: true }] } })}`,
  `/v1/products/?${w({ name: { $gt: 'Lodge', $lte: 'loft 99' } })}&sort=-name`,
  '/v1/bookings/?sort=-quantity,start_time&per_page=100',
  `/v1/bookings/?${w({ reference: { $exists: false } })}&sort=quantity,end_time`,
  '/v1/orders/?start_time__gte=2026-03-05T00:00:00Z&start_time__lt=2026-03-20T00:00:00%2B01:00&sort=-end_time',
  '/v1/orders/?sort=total_amount&per_page=100',
  '/v1/service-charges/?amount__gt=20.5&sort=-amount',
  '/v1/subscriptions/?sort=valid_until,plan&per_page=100',
  '/v1/subscriptions/?sort=-valid_until&per_page=100',
  `/v1/subscriptions/?${w({ valid_until: { $nin: ['2026-06-02T00:00:00Z'] } })}&sort=valid_until`,
];

describe('lists answer identically on every database', () => {
  const instances = new Map<DialectName, Instance>();

  beforeAll(async () => {
    for (const dialect of dialects) {
      const h = await createHarness(dialect, { clock: steppingClock() });
      const tenant = await h.tenant('Same data');
      const token = await h.bearer(
        tenant,
        listResources.flatMap((r) => crud(r)),
      );
      instances.set(dialect, { h, token, labels: labelsOf(await seedLists(h, token)) });
    }
  });
  afterAll(async () => {
    for (const { h } of instances.values()) await h.close();
  });

  it.each(queries)('%s', async (url) => {
    const answers = new Map<DialectName, { total: number; labels: string[] }>();
    for (const [dialect, { h, token, labels }] of instances) {
      const response = await h.request({ method: 'GET', url, token });
      expect(response.statusCode, `${dialect}: ${response.body}`).toBe(200);
      answers.set(dialect, { total: response.json().total, labels: itemIds(response.json()).map((id) => labels.get(id) ?? `unknown ${id}`) });
    }
    const [first, ...rest] = [...answers.values()];
    expect(first?.labels.length).toBeGreaterThan(0);
    for (const other of rest) expect(other).toEqual(first);
  });
});
