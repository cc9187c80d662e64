import rateLimit from '@fastify/rate-limit';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import { ApiError } from '../http/errors.js';
import { addRouteOnSend } from '../http/route-hooks.js';
import { addressKey, UnauthenticatedLimit } from './unauthenticated-limit.js';
import { counterStore } from './counter-store.js';
import type { CounterStore } from './counter-store.js';

type PluginCallback = Parameters<FastifyRateLimitStore['incr']>[1];

import type { RateLimitGroup } from '../actions/rate-limit-group.js';

export type { RateLimitGroup } from '../actions/rate-limit-group.js';

/**
 * Every configured limit: the route groups, plus `unauthenticated`, which is no route
 * group: it counts refused authentications on every protected route per source IP and is
 * enforced before authentication (`unauthenticated-limit.ts`).
 */
export type RateLimitName = RateLimitGroup | 'unauthenticated';

export interface RateLimitPolicy {
  readonly group: RateLimitName;
  readonly limit: number;
  readonly windowSeconds: number;
  /** `ip` before authentication, `client` after it. */
  readonly key: 'ip' | 'client';
}

/** The configured policy of every group (also reported by `/v1/security/json`). */
export function rateLimitPolicies(config: Config): Readonly<Record<RateLimitName, RateLimitPolicy>> {
  const w = config.rateLimitWindowSeconds;
  return {
    token: { group: 'token', limit: config.rateLimitToken, windowSeconds: w, key: 'ip' },
    reads: { group: 'reads', limit: config.rateLimitReads, windowSeconds: w, key: 'client' },
    writes: { group: 'writes', limit: config.rateLimitWrites, windowSeconds: w, key: 'client' },
    exports: { group: 'exports', limit: config.rateLimitExports, windowSeconds: w, key: 'client' },
    public: { group: 'public', limit: config.rateLimitPublic, windowSeconds: w, key: 'ip' },
    unauthenticated: { group: 'unauthenticated', limit: config.rateLimitUnauthenticated, windowSeconds: w, key: 'ip' },
  };
}

/**
 * The group a route belongs to: the one it declares (actions and the token endpoint do),
 * else public for public routes, reads for GET and writes for the rest. Never guessed
 * from the URL.
 */
export function groupOf(route: Pick<RouteOptions, 'url' | 'method' | 'config'>): RateLimitGroup {
  const declared = route.config?.rateLimitGroup;
  if (declared !== undefined) return declared;
  if (route.config?.public === true) return 'public';
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.every((m) => m === 'GET' || m === 'HEAD') ? 'reads' : 'writes';
}

function keyOf(request: FastifyRequest): string {
  return request.principal ? `client:${request.principal.actorId}` : `ip:${addressKey(request.ip)}`;
}

/**
 * The plugin's `store`: one set of counters for every route. The plugin gives each route a
 * child store of its own, so routes of one group would each count separately (300 writes a
 * minute on every collection instead of 300 in all); here `child` shares the counters, and
 * the key, the caller plus the group id the plugin appends, decides what counts together.
 */
function groupCounters(redis: Redis | undefined): FastifyRateLimitStoreCtor {
  return class GroupCounters implements FastifyRateLimitStore {
    readonly #counters: CounterStore = counterStore({ redis, namespace: 'booking-rl:groups:', cacheEntries: 20_000 });
    incr(key: string, callback: PluginCallback, timeWindow: number, max: number): void {
      this.#counters.incr(key, (error, state) => callback(error, state ?? undefined), timeWindow, max);
    }
    read(key: string, callback: PluginCallback, timeWindow: number, max: number): void {
      this.#counters.read(key, (error, state) => callback(error, state ?? undefined), timeWindow, max);
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Per-group limits with @fastify/rate-limit, one counter per caller and group over all the
 * group's routes (in memory, or Redis when `REDIS_URL` is set so instances share them).
 * Every group counts in the route's own `onRequest` hook, which runs after the app's: the
 * security pipeline has identified the client, and no body has been read yet, so a client
 * cannot send unlimited bodies that are refused as too large, of the wrong type or not JSON
 * without being counted. Responses carry the
 * IETF `RateLimit-Policy` / `RateLimit` fields; a refusal is a 429 problem with `Retry-After`.
 */
export async function installRateLimits(app: FastifyInstance, config: Config, options: { redis?: Redis; onRefused?: (group: RateLimitGroup) => void } = {}): Promise<void> {
  if (!config.rateLimitEnabled) return;
  const policies = rateLimitPolicies(config);
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' || route.method === 'HEAD' || route.config?.rateLimit === false) return;
    const group = groupOf(route);
    const policy = policies[group];
    route.config = {
      ...route.config,
      rateLimitGroup: group,
      rateLimit: {
        max: policy.limit,
        timeWindow: policy.windowSeconds * 1000,
        groupId: policy.group,
        hook: 'onRequest',
        keyGenerator: keyOf,
        onExceeded: () => options.onRefused?.(group),
      },
    };
    // Rewrites the plugin's draft-6 headers as the current draft's structured fields: a
    // hook on the limited route only, knowing its group, instead of an async hook on every
    // response of the app.
    addRouteOnSend(route, (_request, reply, payload, done) => {
      const limit = reply.getHeader('ratelimit-limit');
      if (limit !== undefined) {
        const remaining = reply.getHeader('ratelimit-remaining') ?? 0;
        const reset = reply.getHeader('ratelimit-reset') ?? 0;
        reply.removeHeader('ratelimit-limit');
        reply.removeHeader('ratelimit-remaining');
        reply.removeHeader('ratelimit-reset');
        // A counted request's window always has time left; none means the counter store
        // failed and the request was let through uncounted, so no quota is claimed.
        if (Number(reset) > 0) {
          reply.header('ratelimit-policy', `"${group}";q=${String(limit)};w=${policy.windowSeconds}`);
          reply.header('ratelimit', `"${group}";r=${String(remaining)};t=${String(reset)}`);
        }
      }
      done(null, payload);
    });
  });
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    store: groupCounters(options.redis),
    // A storage outage must not take the API down; it is logged by the plugin's caller.
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', `Rate limit exceeded; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`, { headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) } }),
  });
}

/**
 * The pre-authentication limit of protected routes ({@link UnauthenticatedLimit}), sharing
 * the route limits' Redis when there is one; `undefined` when rate limits are off.
 */
export function unauthenticatedLimit(
  config: Config,
  options: { redis?: Redis; onRefused?: (group: RateLimitName) => void; onStoreError?: (error: Error) => void } = {},
): UnauthenticatedLimit | undefined {
  if (!config.rateLimitEnabled) return undefined;
  const policy = rateLimitPolicies(config).unauthenticated;
  return new UnauthenticatedLimit({
    limit: policy.limit,
    windowSeconds: policy.windowSeconds,
    ...(options.redis ? { redis: options.redis } : {}),
    onRefused: () => options.onRefused?.('unauthenticated'),
    ...(options.onStoreError ? { onStoreError: options.onStoreError } : {}),
  });
}
