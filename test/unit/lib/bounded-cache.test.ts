import { describe, expect, it } from 'vitest';
import { BoundedCache, BoundedMap } from '../../../src/lib/bounded-cache.js';

describe('the bounded map', () => {
  it('never holds more than its bound: a new key when full drops the entry written longest ago', () => {
    const map = new BoundedMap<string, number>(3);
    for (const [index, key] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(key, index);
    expect(map.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => map.get(key))).toEqual([undefined, undefined, 2, 3, 4]);
  });

  it('a rewritten key becomes the newest, and rewriting one evicts nothing', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 3);
    expect(map.size).toBe(2);
    map.set('c', 4);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
  });

  it('refuses a bound that holds nothing', () => {
    expect(() => new BoundedMap(0)).toThrow(/at least one entry/);
  });
});

describe('the bounded memo table', () => {
  it('builds a value once per key while it is held, again once it was evicted', () => {
    const cache = new BoundedCache<string, string>(2);
    const built: string[] = [];
    const create = (key: string) => {
      built.push(key);
      return key.toUpperCase();
    };
    for (const key of ['a', 'a', 'b', 'a', 'c', 'a']) expect(cache.get(key, create)).toBe(key.toUpperCase());
    // `c` evicted `a`, the oldest, so the last `a` was built again.
    expect(built).toEqual(['a', 'b', 'c', 'a']);
  });
});
