import { describe, expect, it } from 'vitest';
import { MemoryReplayStore, ReplayStoreFullError } from '../../../src/security/replay-store.js';

const now = 1_800_000_000;

describe('MemoryReplayStore', () => {
  it('claims a key once until it expires', async () => {
    const store = new MemoryReplayStore();
    expect(await store.claim('client_assertion', 'client-1:jti-1', now + 300, now)).toBe(true);
    expect(await store.claim('client_assertion', 'client-1:jti-1', now + 300, now + 1)).toBe(false);
    expect(await store.claim('client_assertion', 'client-1:jti-1', now + 300, now + 299)).toBe(false);
    expect(await store.claim('client_assertion', 'client-1:jti-1', now + 600, now + 300)).toBe(true);
    expect(await store.claim('client_assertion', 'client-1:jti-1', now + 600, now + 301)).toBe(false);
  });

  it('keeps namespaces and keys apart', async () => {
    const store = new MemoryReplayStore();
    expect(await store.claim('client_assertion', 'k', now + 60, now)).toBe(true);
    expect(await store.claim('dpop', 'k', now + 60, now)).toBe(true);
    expect(await store.claim('dpop', 'k2', now + 60, now)).toBe(true);
    expect(await store.claim('dpop', 'k', now + 60, now)).toBe(false);
  });

  it('lets exactly one of 100 parallel claims of one key win', async () => {
    const store = new MemoryReplayStore();
    const results = await Promise.all(Array.from({ length: 100 }, () => store.claim('dpop', 'same', now + 60, now)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('sweeps expired entries periodically', async () => {
    const store = new MemoryReplayStore({ sweepIntervalSeconds: 60 });
    for (let i = 0; i < 10; i++) await store.claim('dpop', `k${i}`, now + 10, now);
    expect(store.size).toBe(10);
    await store.claim('dpop', 'later', now + 200, now + 100);
    expect(store.size).toBe(1);
  });

  it('makes room by sweeping when full, and fails closed when every entry is live', async () => {
    const store = new MemoryReplayStore({ maxEntries: 2, sweepIntervalSeconds: 3600 });
    expect(await store.claim('dpop', 'a', now + 10, now)).toBe(true);
    expect(await store.claim('dpop', 'b', now + 100, now)).toBe(true);
    expect(await store.claim('dpop', 'c', now + 100, now + 20)).toBe(true);
    await expect(store.claim('dpop', 'd', now + 100, now + 30)).rejects.toThrow(ReplayStoreFullError);
    expect(await store.claim('dpop', 'b', now + 100, now + 30)).toBe(false);
  });
});
