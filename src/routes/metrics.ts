import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import type { MetricsAccess } from '../observability/metrics-access.js';

/**
 * `GET /metrics`: Prometheus text format. The route is `{ public: true }` for the
 * access-token pipeline because a scraper is not an OAuth client (it cannot sign
 * `private_key_jwt` assertions or hold capabilities); its own `onRequest` guard applies
 * `METRICS_TOKEN` / `METRICS_ALLOW` instead (see {@link MetricsAccess}).
 */
export function metricsRoutes(metrics: Metrics, access: MetricsAccess) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      '/metrics',
      {
        config: { public: true },
        onRequest: async (request) => access.check(request),
      },
      async (_request, reply) => {
        const text = await metrics.render();
        return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
      },
    );
  };
}
