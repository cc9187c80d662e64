import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';
import type { HelmetOptions } from 'helmet';
import type { Config } from '../config/config.js';

const helmetOptions: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
  hsts: { maxAge: 31_536_000, includeSubDomains: true },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
};

/**
 * The headers helmet sets for our options, computed once. They do not depend on the
 * request, and running the middleware per request re-parses the CSP every time.
 */
export function helmetHeaders(options: HelmetOptions = helmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return Object.freeze(headers);
}

/**
 * Headers on every response: the request id, HSTS (one year), `nosniff`, frame denial, no referrer and a
 * CSP that lets a JSON response load nothing at all. HTML pages (status, docs) set their
 * own, looser CSP in their routes. CORS is off unless `CORS_ORIGINS` names origins; this
 * is a machine-to-machine API and browsers have no business calling it by default.
 */
export async function installSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const headers = helmetHeaders();
  const names = Object.keys(headers);
  const values = names.map((name) => headers[name] ?? '');
  // Set before the handler runs, so a route may still replace any of them. The request id
  // is set here too: one hook for the headers every response carries.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    for (let i = 0; i < names.length; i++) reply.header(names[i] as string, values[i]);
    // Authenticated answers are private to their caller: never stored by any cache.
    if (request.routeOptions.config?.public !== true) reply.header('cache-control', 'no-store');
    done();
  });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...config.corsOrigins],
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      // Every request and response header of the OpenAPI document (test/api/edge/headers.test.ts checks).
      allowedHeaders: ['Authorization', 'DPoP', 'Content-Type', 'If-Match', 'X-Tenant-Id', 'Idempotency-Key'],
      exposedHeaders: [
        'ETag',
        'Idempotency-Replayed',
        'Content-Disposition',
        'Location',
        'Link',
        'X-Total-Count',
        'X-Page',
        'X-Per-Page',
        'X-Total-Pages',
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'DPoP-Nonce',
        'WWW-Authenticate',
        'X-Request-Id',
      ],
      maxAge: 600,
    });
  }
}
