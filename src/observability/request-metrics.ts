import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tokenPath } from '../core/api-paths.js';
import { addRouteOnSend } from '../http/route-hooks.js';
import type { Metrics } from './metrics.js';
import { unmatchedRoute } from './metrics.js';

const errorCode = /^[a-z_]{1,40}$/;

/**
 * The route label: the registered pattern (`/v1/products/:id`), never the raw URL, so ids
 * and probing scanners cannot grow the label set without bound.
 */
function routeLabel(request: FastifyRequest): string {
  if (request.is404) return unmatchedRoute;
  return request.routeOptions.url ?? unmatchedRoute;
}

/**
 * The public code of a refused token request: the RFC 6749 `error` member, or the problem
 * `code` when something in front of the endpoint (a rate limit) answered. Only short
 * snake_case codes pass, so the label set stays the closed set the server itself writes.
 */
function refusalReason(payload: unknown): string {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined || text.length > 4096) return 'unknown';
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown };
    const code = body.error ?? body.code;
    return typeof code === 'string' && errorCode.test(code) ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Counts every response by method, route pattern and status (`onResponse`, so refusals
 * by the security pipeline and 404s count too), and the token endpoint's outcomes.
 *
 * The token counters read the response the endpoint already sends (`onSend` sees the
 * serialised `{ error }` body) instead of being called from the token route: the route and
 * the token service stay unaware of metrics, and any refusal path — OAuth error, body
 * limit, rate limit — is counted the same way. Install before the routes are registered.
 * Process metrics start when the server listens.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route) => {
    if (route.url !== tokenPath || route.method !== 'POST') return;
    addRouteOnSend(route, async (_request, reply, payload) => {
      if (reply.statusCode === 200) metrics.tokenIssued();
      else metrics.tokenRefused(refusalReason(payload));
      return payload;
    });
  });
  app.addHook('onListen', async () => metrics.startProcessMetrics());
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.method, routeLabel(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
