import { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

/** Whether the logger writes `level` (loggers without `isLevelEnabled` are asked to write). */
function writes(log: FastifyBaseLogger, level: string): boolean {
  const { isLevelEnabled } = log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  return typeof isLevelEnabled !== 'function' || isLevelEnabled.call(log, level);
}

/** Milliseconds to two decimals. */
const responseTime = (reply: FastifyReply) => Math.round(reply.elapsedTime * 100) / 100;

/**
 * Fastify's request log lines, one per request at the default `info` level: the arrival
 * line moves to `debug` (for chasing a request that never completes), and the completion
 * line carries method, scrubbed URL, status and time, so it stands on its own. Request
 * and reply go into the line as they are; the logger's serialisers (`logger-options.ts`
 * and Fastify's for `res` and `err`) pick what is written, only when a line is written.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest, _reply: FastifyReply): void {
    if (writes(request.log, 'debug')) request.log.debug({ req: request }, 'request received');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: responseTime(reply) }, 'request errored');
    else if (writes(request.log, 'info')) request.log.info({ req: request, res: reply, responseTime: responseTime(reply) }, 'request completed');
  }
}
