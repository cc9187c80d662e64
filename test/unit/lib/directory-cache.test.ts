import { describe, expect, it } from 'vitest';
import { DirectoryCache } from '../../../src/lib/directory-cache.js';

describe('the directory cache', () => {
  it('does not cache what a load read while the entry was forgotten or the cache cleared', async () => {
    for (const drop of [(cache: DirectoryCache<string>) => cache.forget('c1'), (cache: DirectoryCache<string>) => cache.clear()]) {
      const cache = new DirectoryCache<string>(60_000, () => 0);
      let release: (value: string) => void = () => undefined;
      const slow = cache.get('c1', () => new Promise<string>((resolve) => (release = resolve)));
      drop(cache); // the client changed while its lookup was in flight
      release('enabled, as read before the change');
      expect(await slow).toBe('enabled, as read before the change');
      // The next lookup loads again and sees the change.
      expect(await cache.get('c1', async () => 'disabled')).toBe('disabled');
      expect(cache.peek('c1')).toBe('disabled');
    }
  });

  it('keeps an entry, a miss too, for at most its time to live', async () => {
    let now = 0;
    const cache = new DirectoryCache<string>(5_000, () => now);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return undefined;
    };
    await cache.get('missing', load);
    await cache.get('missing', load);
    expect(loads).toBe(1);
    now = 5_000;
    await cache.get('missing', load);
    expect(loads).toBe(2);
  });

  it('when full, drops the entry loaded longest ago and keeps serving the others', async () => {
    const cache = new DirectoryCache<string>(60_000, () => 0, 3);
    const loaded: string[] = [];
    const load = async (key: string) => {
      loaded.push(key);
      return `record ${key}`;
    };
    for (const key of ['c1', 'c2', 'c3', 'c4']) await cache.get(key, load);
    expect(['c1', 'c2', 'c3', 'c4'].map((key) => cache.peek(key))).toEqual([undefined, 'record c2', 'record c3', 'record c4']);
    // The entries still held answer without a load; only the dropped one loads again.
    for (const key of ['c2', 'c3', 'c4', 'c1']) await cache.get(key, load);
    expect(loaded).toEqual(['c1', 'c2', 'c3', 'c4', 'c1']);
  });
});
