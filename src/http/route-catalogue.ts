import type { FastifyContextConfig, RouteOptions } from 'fastify';

/** The access and lifecycle declarations of a route (see `security/route-config.ts`). */
export type RouteDeclaration = Readonly<Pick<FastifyContextConfig, 'capability' | 'public' | 'anyUser' | 'deprecated'>>;

/** One method of one registered route. */
export interface RouteInfo {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The URL as registered, Fastify syntax (`/v1/products/:id`). */
  readonly url: string;
  readonly config: RouteDeclaration;
}

/**
 * Every route the application registers, recorded from an `onRoute` hook so that the
 * OpenAPI document (and the test that checks it) can never miss one. HEAD routes are left
 * out: Fastify adds one for every GET, and they answer exactly like the GET.
 */
export class RouteCatalogue {
  private readonly entries = new Map<string, RouteInfo>();

  /** The `onRoute` hook body: records each method of the route once. */
  add(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const raw of methods) {
      const method = String(raw).toUpperCase();
      if (method === 'HEAD') continue;
      const key = `${method} ${route.url}`;
      if (this.entries.has(key)) continue;
      this.entries.set(key, Object.freeze({ method, url: route.url, config: declaration(route.config) }));
    }
  }

  /** The recorded routes, in registration order. */
  get routes(): readonly RouteInfo[] {
    return [...this.entries.values()];
  }
}

/** Only the declarations, so the catalogue holds no handlers or plugin state. */
function declaration(config: RouteOptions['config']): RouteDeclaration {
  const out: { -readonly [K in keyof RouteDeclaration]: RouteDeclaration[K] } = {};
  if (config?.capability !== undefined) out.capability = config.capability;
  if (config?.public !== undefined) out.public = config.public;
  if (config?.anyUser !== undefined) out.anyUser = config.anyUser;
  if (config?.deprecated !== undefined) out.deprecated = config.deprecated;
  return Object.freeze(out);
}
