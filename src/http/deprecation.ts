import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { addRouteOnSend } from './route-hooks.js';

/** A route's deprecation notice: when it was deprecated, when it goes away, where to read why. */
export type DeprecationNotice = NonNullable<FastifyContextConfig['deprecated']>;

/** Response headers announcing a deprecation. */
export interface DeprecationHeaders {
  /** RFC 9745: a structured-field date, `@<epoch seconds>`. */
  readonly deprecation: string;
  /** RFC 8594: an HTTP-date (IMF-fixdate). */
  readonly sunset: string;
  /** RFC 8288 link to the notice (`rel="deprecation"`), when the notice has one. */
  readonly link: string | undefined;
}

function instant(value: string, what: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`deprecation ${what} "${value}" is not a date`);
  return date;
}

/**
 * The header values of a notice.
 *
 * @throws Error when `since` or `sunset` is not a date, or the sunset precedes the deprecation
 */
export function deprecationHeaders(notice: DeprecationNotice): DeprecationHeaders {
  const since = instant(notice.since, 'since');
  const sunset = instant(notice.sunset, 'sunset');
  if (sunset.getTime() < since.getTime()) throw new Error(`deprecation sunset ${notice.sunset} precedes since ${notice.since}`);
  return {
    deprecation: `@${Math.floor(since.getTime() / 1000)}`,
    sunset: sunset.toUTCString(),
    link: notice.link === undefined ? undefined : `<${notice.link}>; rel="deprecation"; type="text/html"`,
  };
}

/**
 * Announces deprecated routes: every response of a route whose config declares
 * `deprecated` (errors included, hence a route-level `onSend`) carries `Deprecation`, `Sunset` and,
 * with a link, `Link: <…>; rel="deprecation"` next to any other links (pagination).
 * A malformed notice fails the start-up instead of the first response.
 */
export function installDeprecation(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const notice = route.config?.deprecated;
    if (!notice) return;
    const headers = deprecationHeaders(notice);
    addRouteOnSend(route, async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header('deprecation', headers.deprecation).header('sunset', headers.sunset);
      if (headers.link) {
        const existing = reply.getHeader('link');
        const others = Array.isArray(existing) ? existing.join(', ') : existing;
        reply.header('link', others === undefined || others === '' ? headers.link : `${String(others)}, ${headers.link}`);
      }
      return payload;
    });
  });
}
