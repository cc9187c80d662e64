import { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

/** Whether the logger writes `level` (loggers without `isLevelEnabled` are asked to write). */
function writes(log: FastifyBaseLogger, level: string): boolean {
  const { isLevelEnabled } = log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  return typeof isLevelEnabled !== 'function' || isLevelEnabled.call(log, level);
}

/**
 * Fastify's request log lines, one per request at the default `info` level: the arrival
 * line moves to `debug` (for chasing a request that never completes), and the completion
 * line carries method, scrubbed URL, status and time, so it stands on its own.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, _reply: FastifyReply): void {
    if (writes(request.log, 'debug')) request.log.debug({ req: request }, 'request received');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && !writes(request.log, 'info')) return;
    const entry = { req: request, res: { statusCode: reply.statusCode }, responseTime: Math.round(reply.elapsedTime * 100) / 100 };
    if (error) request.log.error({ ...entry, err: error }, 'request errored');
    else request.log.info(entry, 'request completed');
  }
}
