import { BoundedMap } from './bounded-cache.js';

/**
 * The security pipeline's directories of clients, users and tenant nodes: values looked up
 * by id and kept for at most `ttlMs`. A miss loads once per TTL (and is cached too, as
 * `undefined`); {@link forget} drops an entry at once when the change feed says it changed,
 * and {@link clear} drops everything when the feed may have missed changes. A load that was
 * under way when either happened returns its value but does not cache it (a generation
 * guard), so a record changed during its own lookup is never served stale for a lifetime.
 * The size is bounded ({@link BoundedMap}: when full, the entry loaded longest ago goes).
 */
export class DirectoryCache<V> {
  private readonly entries: BoundedMap<string, { value: V | undefined; until: number }>;
  /** Bumped by every forget and clear: a lookup that raced one must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    maxEntries = 10_000,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  /** The cached value, or the one `load` finds. */
  async get(key: string, load: (key: string) => Promise<V | undefined>): Promise<V | undefined> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.until > now) return cached.value;
    const generation = this.generation;
    const value = await load(key);
    if (generation !== this.generation) return value;
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  /** The cached value while it is fresh (`undefined` also for a cached miss), without loading. */
  peek(key: string): V | undefined {
    const cached = this.entries.get(key);
    return cached && cached.until > this.now() ? cached.value : undefined;
  }

  forget(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

/** Record ids are short printable ASCII: anything else names nothing (and a NUL byte would make PostgreSQL fail). */
export const plausibleId = /^[\x21-\x7e]{1,200}$/;
