import type { RouteOptions } from 'fastify';

/** One route-level `onSend` hook, callback-style (`done`) or async (Fastify awaits it). */
type RouteOnSendHook = Exclude<NonNullable<RouteOptions['onSend']>, readonly unknown[]>;

/**
 * Adds an `onSend` hook to one route from an `onRoute` hook: only the routes that need it
 * pay for it, where an app-wide hook would run (and allocate a promise) on every response.
 * Route-level hooks still run for errors and refusals of that route.
 */
export function addRouteOnSend(route: RouteOptions, hook: RouteOnSendHook): void {
  const existing = route.onSend;
  route.onSend = existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}
