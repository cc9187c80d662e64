import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, createClient } from '../../packages/client/src/index.js';
import type { Client } from '../../packages/client/src/index.js';
import { IdempotencyKeys } from '../../src/http/idempotency.js';
import type { Claim } from '../../src/http/idempotency.js';
import { DataKey } from '../../src/security/data-key.js';
import { crud, listeningService, manualClock, recordingFetch } from '../support/listening-service.js';
import type { ClientCredentials, ListeningService } from '../support/listening-service.js';

const product = (name: string) => ({ name, address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 });

/** A sleep that returns at once, remembering each wait and running `during` as if the time passed meanwhile. */
function steppedSleep(during: (waited: number) => Promise<void> = async () => {}): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => (waits.push(ms), await during(waits.length)) };
}

/**
 * 409 `idempotency_key_in_use` (src/http/idempotency.ts): the service answers it, with
 * `Retry-After: 1`, to a repeat whose key's first request still runs. The first request is
 * held "running" deterministically by claiming the key in the service's own store, under the
 * scope the service gives this client's POST /v1/products.
 */
describe('client library: a keyed POST whose key is still in use', () => {
  let service: ListeningService;
  let credentials: ClientCredentials;
  let keys: IdempotencyKeys;
  let scope: string;
  let serial = 0;

  const connect = (options: Partial<Parameters<typeof createClient>[0]> = {}): Client =>
    createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, ...options });

  /** The key's first request, running until released or completed. */
  async function running(key: string, body: unknown): Promise<Extract<Claim, { kind: 'run' }>> {
    const claim = await keys.claim(scope, key, body);
    if (claim.kind !== 'run') throw new Error(`key ${key} was not free`);
    return claim;
  }

  const freshKey = () => `key-in-use-${(serial += 1)}`;

  beforeAll(async () => {
    service = await listeningService();
    credentials = await service.credentials([...crud('products'), ...crud('bookings')]);
    keys = new IdempotencyKeys(service.h.database, { now: () => Date.now() }, DataKey.open(service.h.config));
    // The scope the service stores for this client's keyed POST /v1/products.
    await connect().products.create(product('scope probe'), { idempotencyKey: 'scope-probe' });
    const row = await service.h.database.db.selectFrom('idempotency_keys').select('scope').where('key', '=', 'scope-probe').executeTakeFirstOrThrow();
    scope = row.scope;
  });
  afterAll(() => service.close());

  it('waits out Retry-After and returns the answer of the repeat once the first request gave the key up', async () => {
    const key = freshKey();
    const first = await running(key, product('released'));
    const { sleep, waits } = steppedSleep(() => first.release());
    const recorder = recordingFetch();
    const created = await connect({ sleep, fetch: recorder.fetch }).products.create(product('released'), { idempotencyKey: key });
    expect(created.record).toMatchObject(product('released'));
    expect(created.replayed).toBe(false);
    expect(waits).toEqual([1000]);
    expect(recorder.count('POST /v1/products')).toBe(2);
  });

  it('returns the replayed answer once the first request finished', async () => {
    const key = freshKey();
    const client = connect();
    const original = await client.products.create(product('replayed'), { idempotencyKey: key });
    const row = () => service.h.database.db.updateTable('idempotency_keys').where('scope', '=', scope).where('key', '=', key);
    // Back to the state the first request held while it ran; the wait sees it finish.
    await row().set({ state: 'running' }).execute();
    const { sleep, waits } = steppedSleep(async () => void (await row().set({ state: 'done' }).execute()));
    const recorder = recordingFetch();
    const again = await connect({ sleep, fetch: recorder.fetch }).products.create(product('replayed'), { idempotencyKey: key });
    expect(again).toEqual({ ...original, replayed: true });
    expect(waits).toEqual([1000]);
    expect(recorder.count('POST /v1/products')).toBe(2);
  });

  it('reads Retry-After as an HTTP date by the client clock', async () => {
    const key = freshKey();
    const first = await running(key, product('dated'));
    const clock = manualClock(Math.floor(Date.now() / 1000) * 1000);
    const { sleep, waits } = steppedSleep(() => first.release());
    // The real 409, with its Retry-After given as the date three seconds from the client's now.
    const dated: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status !== 409) return response;
      const headers = new Headers(response.headers);
      headers.set('retry-after', new Date(clock.now() + 3000).toUTCString());
      return new Response(await response.text(), { status: 409, headers });
    };
    const created = await connect({ sleep, clock, fetch: dated }).products.create(product('dated'), { idempotencyKey: key });
    expect(created.replayed).toBe(false);
    expect(waits).toEqual([3000]);
  });

  it('throws ConflictError once maxAttempts are spent', async () => {
    const key = freshKey();
    const first = await running(key, product('held'));
    try {
      for (const [maxAttempts, expectedWaits] of [
        [undefined, [1000, 1000]],
        [1, []],
      ] as const) {
        const { sleep, waits } = steppedSleep();
        const recorder = recordingFetch();
        const client = connect({ sleep, fetch: recorder.fetch, ...(maxAttempts === undefined ? {} : { retry: { maxAttempts } }) });
        const error = await client.products.create(product('held'), { idempotencyKey: key }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConflictError);
        expect(error).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
        expect((error as ConflictError).headers.get('retry-after')).toBe('1');
        expect(waits).toEqual(expectedWaits);
        expect(recorder.count('POST /v1/products')).toBe(expectedWaits.length + 1);
      }
    } finally {
      await first.release();
    }
  });

  it('throws ConflictError at once when Retry-After exceeds maxRetryAfterSeconds', async () => {
    const key = freshKey();
    const first = await running(key, product('too long'));
    try {
      const { sleep, waits } = steppedSleep();
      const recorder = recordingFetch();
      const error = await connect({ sleep, fetch: recorder.fetch, retry: { maxRetryAfterSeconds: 0 } })
        .products.create(product('too long'), { idempotencyKey: key })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 'idempotency_key_in_use' });
      expect(waits).toEqual([]);
      expect(recorder.count('POST /v1/products')).toBe(1);
    } finally {
      await first.release();
    }
  });

  it('throws any other 409 of a keyed POST at once', async () => {
    const client = connect();
    const { record: single } = await client.products.create({ ...product('single'), total_items: 1 });
    const slot = { product_id: single._id, start_time: '2031-03-01T10:00:00.000Z', end_time: '2031-03-01T11:00:00.000Z' };
    await client.bookings.create(slot, { idempotencyKey: freshKey() });
    const { sleep, waits } = steppedSleep();
    const recorder = recordingFetch();
    const error = await connect({ sleep, fetch: recorder.fetch })
      .bookings.create(slot, { idempotencyKey: freshKey() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, code: 'capacity_exceeded' });
    expect(waits).toEqual([]);
    expect(recorder.count('POST /v1/bookings')).toBe(1);
  });
});
