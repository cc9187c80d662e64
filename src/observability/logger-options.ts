import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from '../config/config.js';

/**
 * Header and body members never written to logs (the security posture lists them). The
 * serialisers below keep them out: a request is logged as method, scrubbed URL, host and
 * peer only, and a `client_assertion` member is censored wherever it is logged.
 */
export const redactedPaths = ['req.headers.authorization', 'req.headers.dpop', 'req.headers.cookie', 'req.body.client_assertion', 'client_assertion'];

const censor = '[redacted]';

/** Query parameters whose values are worth logging; every other value may be personal or secret. */
const loggableParameters = new Set(['page', 'per_page', 'sort', 'fields', 'format']);

/**
 * The request URL as logged: query values other than paging and shape are replaced, so
 * filter values (e-mail addresses) and misplaced credentials (`access_token`,
 * `client_assertion` sent in a URL) never reach the logs.
 */
function loggableUrl(raw: string): string {
  // A calendar feed's path is its credential (docs/calendars.md "Export"): never logged.
  const url = raw.replace(/^\/v1\/calendars\/[^/?]*/, `/v1/calendars/${censor}`);
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  const kept = [...params].map(([name, value]) => `${encodeURIComponent(name)}=${loggableParameters.has(name) ? encodeURIComponent(value) : censor}`);
  return `${url.slice(0, mark)}?${kept.join('&')}`;
}

/**
 * A request as logged: what was asked and by which peer, never headers or body. Whatever
 * is logged as `req` passes through here, a request-shaped object too, so nothing is assumed.
 */
function loggableRequest(request: Partial<FastifyRequest>) {
  return { method: request.method, url: typeof request.url === 'string' ? loggableUrl(request.url) : undefined, host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort };
}

/**
 * pino options of the service, written to `stream` (pino's default, synchronous stdout,
 * when omitted; `main.ts` passes `logDestination()`). Secrets are kept out by pino's own
 * serialisers, which run only for the member they name, rather than by path redaction,
 * which walks every line that logs a request.
 */
export function loggerOptions(config: Config, stream?: DestinationStream): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    serializers: { req: loggableRequest, client_assertion: () => censor },
    ...(stream ? { stream } : {}),
  };
}
