import { BoundedMap } from '../lib/bounded-cache.js';

/**
 * Recent list totals. Counting every match of a broad filter costs milliseconds on each
 * page of a listing, while the total rarely changes between two pages. A total is reused
 * for `ttlMs`, and only while no write to the resource has committed in this process since
 * it was counted (each write bumps the resource's generation). Writes made by another
 * instance show up once the entry expires.
 */
export class CountCache {
  private readonly generations = new Map<string, number>();
  private readonly entries: BoundedMap<string, { total: number; generation: number; expires: number }>;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    maxEntries = 10_000,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  /** The current generation of a resource; read it before counting. */
  generation(resource: string): number {
    return this.generations.get(resource) ?? 0;
  }

  /** A total counted at `generation` that is still valid, if any. */
  get(resource: string, key: string): number | undefined {
    if (this.ttlMs <= 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= this.now() || entry.generation !== this.generation(resource)) return undefined;
    return entry.total;
  }

  set(key: string, total: number, generation: number): void {
    if (this.ttlMs <= 0) return;
    this.entries.set(key, { total, generation, expires: this.now() + this.ttlMs });
  }

  /** Called after a write to `resource` committed: every cached total of it is void. */
  invalidate(resource: string): void {
    this.generations.set(resource, this.generation(resource) + 1);
  }
}
