/**
 * Values looked up by id and kept for a short time (the security pipeline's directories of
 * clients and users): misses load once per TTL, {@link forget} drops an entry at once when
 * the change feed says it changed, and the size is bounded (cleared when full).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V | undefined; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value, or the one `load` finds (a miss is cached too: `undefined`). */
  async get(key: string, load: (key: string) => Promise<V | undefined>): Promise<V | undefined> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.until > now) return cached.value;
    const value = await load(key);
    if (this.entries.size > this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  /** The cached value while it is fresh (`undefined` also for a cached miss), without loading. */
  peek(key: string): V | undefined {
    const cached = this.entries.get(key);
    return cached && cached.until > this.now() ? cached.value : undefined;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** Record ids are short printable ASCII: anything else names nothing (and a NUL byte would make PostgreSQL fail). */
export const plausibleId = /^[\x21-\x7e]{1,200}$/;
