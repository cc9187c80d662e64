/**
 * The pre-authentication limit of protected routes: refused authentications per source IP.
 * Client-keyed limits can only count a request once its token proved who is calling, so
 * without this a flood of bad tokens (each with a valid `kid`, each costing a P-521
 * verification) would never be limited. Its counters are kept like the route limits'
 * (`counter-store.ts`), so instances share them when `REDIS_URL` is set.
 */
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError } from '../http/errors.js';
import type { AuthenticationGate } from '../security/authenticate.js';
import { counterStore } from './counter-store.js';
import type { CounterState, CounterStore } from './counter-store.js';

/**
 * The counted address: IPv4 as is, IPv6 by its /64 (@fastify/rate-limit's default), since
 * one IPv6 customer holds a whole prefix and would otherwise get a fresh count per address.
 */
export function addressKey(ip: string): string {
  return normalizeIP(ip);
}

export interface UnauthenticatedLimitOptions {
  /** Refused authentications allowed per window and address. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Shared counters; in memory (one instance) when absent. */
  readonly redis?: Redis;
  /** Addresses tracked in memory at once (least recently used beyond it are forgotten). */
  readonly cacheEntries?: number;
  /** Called for each request this limit refuses (metrics). */
  readonly onRefused?: () => void;
  /** Called when the counter store fails; the request is then let through. */
  readonly onStoreError?: (error: Error) => void;
}

/**
 * Counts refused authentications per source address and, once an address has used up its
 * allowance for the window, answers its protected requests with 429 before any token or
 * proof is checked. Requests authenticated by a token this instance already verified skip
 * the check entirely (see `Authenticator`), so legitimate traffic pays nothing for it.
 */
export class UnauthenticatedLimit implements AuthenticationGate {
  /** The rate-limit group name in `RateLimit-Policy` and in metrics. */
  static readonly group = 'unauthenticated';
  readonly #store: CounterStore;
  readonly #options: UnauthenticatedLimitOptions;
  readonly #windowMs: number;
  readonly #policy: string;

  constructor(options: UnauthenticatedLimitOptions) {
    this.#options = options;
    this.#windowMs = options.windowSeconds * 1000;
    this.#policy = `"${UnauthenticatedLimit.group}";q=${options.limit};w=${options.windowSeconds}`;
    this.#store = counterStore({ redis: options.redis, namespace: 'booking-rl:unauthenticated:', cacheEntries: options.cacheEntries ?? 10_000 });
  }

  async admit(request: FastifyRequest): Promise<void> {
    const state = await this.#call('read', addressKey(request.ip));
    if (!state || state.current < this.#options.limit) return;
    this.#options.onRefused?.();
    const seconds = Math.max(1, Math.ceil(state.ttl / 1000));
    throw new ApiError('rate_limited', `Too many refused authentications from this address; retry in ${seconds} s`, {
      headers: { 'retry-after': String(seconds), 'ratelimit-policy': this.#policy, ratelimit: `"${UnauthenticatedLimit.group}";r=0;t=${seconds}` },
      privateReason: `${state.current} refused authentications from ${request.ip} in the window`,
    });
  }

  async refused(request: FastifyRequest): Promise<Readonly<Record<string, string>>> {
    const state = await this.#call('incr', addressKey(request.ip));
    if (!state) return {};
    // The refusal tells the caller how many more it may get before the 429s start.
    const remaining = Math.max(0, this.#options.limit - state.current);
    return { 'ratelimit-policy': this.#policy, ratelimit: `"${UnauthenticatedLimit.group}";r=${remaining};t=${Math.max(1, Math.ceil(state.ttl / 1000))}` };
  }

  #call(method: 'read' | 'incr', address: string): Promise<CounterState | null> {
    return new Promise((resolve) => {
      this.#store[method](
        address,
        (error, state) => {
          // Like the route limits (skipOnError): a counter outage must not take the API down.
          if (error) this.#options.onStoreError?.(error);
          resolve(error ? null : state);
        },
        this.#windowMs,
        this.#options.limit,
      );
    });
  }
}
