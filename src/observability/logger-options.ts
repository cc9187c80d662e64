import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config/config.js';

/** Header and body members never written to logs. */
export const redactedPaths = ['req.headers.authorization', 'req.headers.dpop', 'req.headers.cookie', 'req.body.client_assertion', 'client_assertion'];

/** Query parameters whose values are worth logging; every other value may be personal or secret. */
const loggableParameters = new Set(['page', 'per_page', 'sort', 'fields', 'format']);

/**
 * The request URL as logged: query values other than paging and shape are replaced, so
 * filter values (e-mail addresses) and misplaced credentials (`access_token`,
 * `client_assertion` sent in a URL) never reach the logs.
 */
function loggableUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const params = new URLSearchParams(url.slice(mark + 1));
  const kept = [...params].map(([name, value]) => `${encodeURIComponent(name)}=${loggableParameters.has(name) ? encodeURIComponent(value) : '[redacted]'}`);
  return `${url.slice(0, mark)}?${kept.join('&')}`;
}

/** pino options of the service: headers and bodies redacted, URLs stripped of values. */
export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: [...redactedPaths], censor: '[redacted]' },
    serializers: {
      req: (request: FastifyRequest) => ({ method: request.method, url: loggableUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort }),
    },
  };
}

