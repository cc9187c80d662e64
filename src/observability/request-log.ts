import type { FastifyInstance } from 'fastify';

/**
 * One log line per request, written when the response is sent: method, URL (scrubbed by
 * the logger's serializer), status and time. Fastify's default writes two lines (received
 * and completed) per request, which doubles the logging cost on the hot path; the arrival
 * line is kept at `debug` for operators chasing a request that never completes.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.log.isLevelEnabled('debug')) request.log.debug({ req: request }, 'request received');
  });
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    request.log[level]({ req: request, res: { statusCode: status }, responseTime: Math.round(reply.elapsedTime * 100) / 100 }, 'request completed');
  });
}
