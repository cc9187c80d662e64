import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/dialect.js';
import { checkReadiness } from '../observability/readiness.js';

const healthType = 'application/health+json';

export interface HealthOptions {
  /**
   * Longest a readiness probe waits for the database. An unreachable host can leave a
   * connection attempt hanging for minutes; the probe must answer 503 well before the
   * load balancer's own timeout instead.
   */
  readonly readyTimeoutMs?: number;
}

/**
 * `/health`: the process is alive. `/ready`: the database answers and every migration is
 * applied; 503 otherwise (and while shutting down), so load balancers stop sending traffic.
 */
export function healthRoutes(database: Database, state: { shuttingDown: boolean }, options: HealthOptions = {}) {
  const timeoutMs = options.readyTimeoutMs ?? 2000;
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/health', { config: { public: true } }, async (_request, reply) => {
      return reply.header('content-type', healthType).header('cache-control', 'no-store').send({ status: 'pass' });
    });
    app.get('/ready', { config: { public: true } }, async (request, reply) => {
      // The same checks as the status page (src/observability/readiness.ts).
      const { ready, checks } = await checkReadiness(database, state, {
        timeoutMs,
        onError: (error) => request.log.warn({ err: error }, 'readiness check failed'),
      });
      return reply
        .code(ready ? 200 : 503)
        .header('content-type', healthType)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'pass' : 'fail', checks });
    });
  };
}
