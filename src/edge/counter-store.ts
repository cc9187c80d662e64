/**
 * Fixed-window request counters, as @fastify/rate-limit keeps them: its own in-memory and
 * Redis stores, so every limit of the service (the route groups and the pre-authentication
 * limit) counts the same way and, with `REDIS_URL`, is shared by every instance.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

export interface CounterState {
  readonly current: number;
  readonly ttl: number;
}
export type CounterCallback = (error: Error | null, state: CounterState | null) => void;

/** @fastify/rate-limit's store contract (its `LocalStore` and `RedisStore`). */
export interface CounterStore {
  incr(key: string, callback: CounterCallback, timeWindowMs: number, max: number): void;
  read(key: string, callback: CounterCallback, timeWindowMs: number, max: number): void;
}

type LocalStoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => CounterStore;
type RedisStoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string) => CounterStore;

// The plugin's stores are CommonJS files without type declarations.
const require = createRequire(import.meta.url);

export interface CounterStoreOptions {
  /** Shared counters; in memory (one instance) when absent. */
  readonly redis?: Redis | undefined;
  /** Prefix of every Redis key. */
  readonly namespace: string;
  /** Keys tracked in memory at once (the least recently used beyond it are forgotten). */
  readonly cacheEntries: number;
}

/** A counter store: in Redis under `namespace` when given one, else in memory. */
export function counterStore(options: CounterStoreOptions): CounterStore {
  if (options.redis) {
    const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as RedisStoreClass;
    return new RedisStore(false, false, options.redis, options.namespace);
  }
  const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as LocalStoreClass;
  return new LocalStore(false, false, options.cacheEntries);
}
