/**
 * A memo table with a size bound: entries are kept in insertion order and the oldest is
 * dropped when full. Used where a value is costly to build from a key that repeats
 * (compiled regexes, imported keys), and where an attacker choosing keys must not be able
 * to grow memory without limit.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly maxEntries: number) {}

  /** The cached value for `key`, built with `create` on a miss. */
  get(key: K, create: (key: K) => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = create(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
    return value;
  }
}
