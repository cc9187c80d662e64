/** Caches outside the database that a committed write can make stale. */
export type CacheKind = 'client' | 'tenant' | 'user';

/** One invalidation: a record of `kind` changed. */
export interface Change {
  readonly kind: CacheKind;
  readonly id: string;
}

/** The PostgreSQL channel invalidations travel on between instances. */
export const changeChannel = 'booking_cache_changes';

/** `client:<id>` on the wire; anything else is ignored. */
export function encodeChange(change: Change): string {
  return `${change.kind}:${change.id}`;
}

export function decodeChange(payload: string): Change | undefined {
  const colon = payload.indexOf(':');
  const kind = payload.slice(0, colon);
  const id = payload.slice(colon + 1);
  if ((kind === 'client' || kind === 'tenant' || kind === 'user') && id.length > 0 && id.length <= 200) return { kind, id };
  return undefined;
}

/**
 * Where an open database tells this process's caches that a record changed: after a local
 * commit, and — on PostgreSQL — when another instance's commit is announced (LISTEN/NOTIFY,
 * see `postgres.ts`). Caches keep a short TTL as the safety net for what no feed carries
 * (SQLite files shared by several processes, a lost listener connection).
 */
export class ChangeFeed {
  private readonly handlers = new Set<(change: Change) => void>();
  private readonly lostHandlers = new Set<() => void>();

  /** Calls `handler` for every change from now on; returns the unsubscribe function. */
  subscribe(handler: (change: Change) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Calls `handler` whenever changes may have been missed (a listener connection dropped): caches drop everything. */
  onLost(handler: () => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  /** Delivers a change to every subscriber of this process. */
  emit(change: Change): void {
    for (const handler of this.handlers) handler(change);
  }

  /** Tells every subscriber that changes may have been missed. */
  lost(): void {
    for (const handler of this.lostHandlers) handler();
  }
}
