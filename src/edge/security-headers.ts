import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';

/**
 * Headers on every response: HSTS (one year), `nosniff`, frame denial, no referrer and a
 * CSP that lets a JSON response load nothing at all. HTML pages (status, docs) set their
 * own, looser CSP in their routes. CORS is off unless `CORS_ORIGINS` names origins; this
 * is a machine-to-machine API and browsers have no business calling it by default.
 */
export async function installSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...config.corsOrigins],
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'DPoP', 'Content-Type', 'If-Match', 'X-Tenant-Id'],
      exposedHeaders: ['ETag', 'Location', 'Link', 'X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'DPoP-Nonce', 'WWW-Authenticate', 'X-Request-Id'],
      maxAge: 600,
    });
  }
  // Authenticated answers are private to their caller: never stored by any cache.
  app.addHook('onSend', async (request, reply) => {
    if (!reply.hasHeader('cache-control') && (request.principal || request.routeOptions.config?.public !== true)) {
      reply.header('cache-control', 'no-store');
    }
  });
}
