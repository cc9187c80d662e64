import fastifySwagger from '@fastify/swagger';
import type { StaticDocumentSpec } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';

/** Where the rendered documentation lives. */
export const docsPrefix = '/docs';

/** Whether a route is one of the documentation UI's own (assets, initializer, spec copies) rather than the page itself. */
export function isDocsAsset(url: string): boolean {
  return url.startsWith(`${docsPrefix}/`);
}

/**
 * Makes every route registered in `scope` (and the plugins below it) public. The route
 * guard (an `onRoute` hook inherited from the root) runs before any hook this scope could
 * add, and @fastify/swagger-ui offers no way to pass route config, so the declaration is
 * added where the routes are created: `route()`, which the UI and @fastify/static use.
 * A route added another way reaches the guard undeclared and stops the start-up.
 */
function declarePublic(scope: FastifyInstance): void {
  const route = scope.route;
  function publicRoute(this: FastifyInstance, options: RouteOptions): FastifyInstance {
    return route.call(this, { ...options, config: { ...options.config, public: true } });
  }
  Object.defineProperty(scope, 'route', { value: publicRoute, configurable: true, writable: true });
}

/**
 * `GET /docs`: Swagger UI over `document` (served by @fastify/swagger in static mode, so
 * the UI shows exactly the generated document), with the UI's own CSP. `GET /` redirects
 * there: the service has no page of its own, and a browser pointed at it should land
 * somewhere useful instead of a 404.
 */
export function docsRoutes(document: StaticDocumentSpec['document']) {
  return async function register(app: FastifyInstance): Promise<void> {
    declarePublic(app);
    app.get('/', { config: { public: true } }, async (_request, reply) => reply.redirect(docsPrefix, 302));
    await app.register(fastifySwagger, { mode: 'static', specification: { document } });
    await app.register(fastifySwaggerUi, {
      routePrefix: docsPrefix,
      staticCSP: true,
      validatorUrl: false,
      theme: { title: 'Booking service API' },
      uiConfig: { deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0 },
    });
  };
}
