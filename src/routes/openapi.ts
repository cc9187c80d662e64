import type { StaticDocumentSpec } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { API_VERSION, buildOpenApi } from './openapi-document.js';
import type { OperationFacts } from './openapi-document.js';
import type { RouteCatalogue } from '../http/route-catalogue.js';
import { docsRoutes, isDocsAsset } from './docs.js';

/**
 * `GET /v1/openapi.json` and the rendered docs at `/docs`. The document is built once, when
 * the application is ready and every route is known; the UI is handed the same object.
 */
export function openApiRoutes(config: Config, catalogue: RouteCatalogue, facts?: OperationFacts) {
  return async function register(app: FastifyInstance): Promise<void> {
    // Filled in place at onReady: @fastify/swagger keeps this reference for the UI.
    const document = { openapi: '3.1.0', info: { title: 'Booking service API', version: API_VERSION }, paths: {} } as StaticDocumentSpec['document'];
    let body = '';
    app.addHook('onReady', async () => {
      Object.assign(
        document,
        buildOpenApi(
          config,
          catalogue.routes.filter((route) => !isDocsAsset(route.url)),
          facts,
        ),
      );
      body = JSON.stringify(document);
    });
    app.get('/v1/openapi.json', { config: { public: true } }, async (_request, reply) => {
      return reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(body);
    });
    await app.register(docsRoutes(document));
  };
}
