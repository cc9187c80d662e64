/**
 * One-time-use records for client assertion and DPoP proof `jti`s. A claim must be a
 * single atomic step (a unique-key insert, SET NX, or synchronous Map code): a
 * check-then-set across an await lets two concurrent requests both see "unused".
 */

/** What a claimed key belongs to; keys of different namespaces never collide. */
export type ReplayNamespace = 'client_assertion' | 'dpop';

/** Records keys until they expire. */
export interface ReplayStore {
  /**
   * Claims `key` until `expiresAt` (epoch s). Resolves true the first time, false while an
   * earlier claim of the same key is unexpired. Callers key client assertions on
   * `iss + jti` (never the token bytes: ECDSA signatures are malleable) and DPoP proofs on
   * `jkt + jti`.
   */
  claim(namespace: ReplayNamespace, key: string, expiresAt: number, now: number): Promise<boolean>;
}

/** The store cannot record another key; refusing is safer than forgetting one. */
export class ReplayStoreFullError extends Error {
  constructor(maxEntries: number) {
    super(`replay store holds ${maxEntries} unexpired entries`);
    this.name = 'ReplayStoreFullError';
  }
}

/** A single-process {@link ReplayStore}; for one instance and for tests. */
export class MemoryReplayStore implements ReplayStore {
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #sweepIntervalSeconds: number;
  #lastSweep = Number.NEGATIVE_INFINITY;

  constructor(options: { readonly maxEntries?: number; readonly sweepIntervalSeconds?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#sweepIntervalSeconds = options.sweepIntervalSeconds ?? 60;
  }

  /** Number of entries held, expired ones included until the next sweep. */
  get size(): number {
    return this.#entries.size;
  }

  // The body has no await, so it runs to completion before any other claim starts.
  async claim(namespace: ReplayNamespace, key: string, expiresAt: number, now: number): Promise<boolean> {
    const id = `${namespace}\u0000${key}`;
    const existing = this.#entries.get(id);
    if (existing !== undefined && existing > now) return false;
    if (now - this.#lastSweep >= this.#sweepIntervalSeconds || this.#entries.size >= this.#maxEntries) this.#sweep(now);
    // Fail closed: evicting an unexpired entry would let that assertion or proof be replayed.
    if (!this.#entries.has(id) && this.#entries.size >= this.#maxEntries) throw new ReplayStoreFullError(this.#maxEntries);
    this.#entries.set(id, expiresAt);
    return true;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [id, expiresAt] of this.#entries) {
      if (expiresAt <= now) this.#entries.delete(id);
    }
  }
}
