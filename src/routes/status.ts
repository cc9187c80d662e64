import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/dialect.js';
import { packageInfo } from '../observability/package-info.js';
import { checkReadiness } from '../observability/readiness.js';
import { renderStatusPage, statusPageCsp } from '../observability/status-page.js';
import type { Clock } from '../core/clock.js';

export interface StatusDeps {
  readonly database: Database;
  readonly state: { readonly shuttingDown: boolean };
  readonly clock: Clock;
  /** When the app was built (milliseconds since the epoch), for the uptime. */
  readonly startedAt: number;
  /** Longest the database check may take; default 2000 ms, like `/ready`. */
  readonly timeoutMs?: number;
}

/**
 * `GET /status`: the public HTML status page. It always answers 200 — it is for people;
 * probes use `/ready`, which runs the very same checks.
 */
export function statusRoutes(deps: StatusDeps) {
  const version = packageInfo().version;
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/status', { config: { public: true } }, async (request, reply) => {
      const readiness = await checkReadiness(deps.database, deps.state, {
        timeoutMs: deps.timeoutMs ?? 2000,
        onError: (error) => request.log.warn({ err: error }, 'status page: database check failed'),
      });
      const html = renderStatusPage({
        readiness,
        shuttingDown: deps.state.shuttingDown,
        storage: deps.database.dialect.name,
        version,
        startedAt: deps.startedAt,
        now: deps.clock.now(),
      });
      return reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', statusPageCsp).header('cache-control', 'no-store').send(html);
    });
  };
}
