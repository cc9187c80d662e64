/**
 * A map that holds at most `maxEntries`: writing a key when full drops the entry written
 * longest ago. The one bound of the in-memory caches, so that keys an attacker chooses can
 * never grow memory without limit, and a full cache loses its oldest entry, not all of them.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error(`a bounded map holds at least one entry, not ${maxEntries}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Writes `key` as the newest entry, dropping the oldest when full. */
  set(key: K, value: V): void {
    // Rewritten, a key moves to the end: what was refreshed last is evicted last.
    if (!this.#entries.delete(key) && this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * A memo table with a size bound ({@link BoundedMap}). Used where a value is costly to
 * build from a key that repeats (compiled regexes, imported keys).
 */
export class BoundedCache<K, V> {
  readonly #entries: BoundedMap<K, V>;

  constructor(maxEntries: number) {
    this.#entries = new BoundedMap(maxEntries);
  }

  /** The cached value for `key`, built with `create` on a miss. */
  get(key: K, create: (key: K) => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const value = create(key);
    this.#entries.set(key, value);
    return value;
  }
}
