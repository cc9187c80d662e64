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
});
