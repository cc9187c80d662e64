import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config/config.js';
import type { Database } from './db/dialect.js';
import { installRateLimits, unauthenticatedLimit } from './edge/rate-limit.js';
import type { RateLimitName } from './edge/rate-limit.js';
import { installSecurityHeaders } from './edge/security-headers.js';
import { httpsOptions } from './edge/tls.js';
import { installDeprecation } from './http/deprecation.js';
import { errorHandler } from './http/error-handler.js';
import { frameworkErrors } from './http/framework-errors.js';
import { clientErrorHandler } from './http/client-errors.js';
import { installQueryEncodingCheck } from './http/query-encoding.js';
import { ApiError } from './http/errors.js';
import { MethodRouter } from './http/method-router.js';
import { sendProblem } from './http/problem.js';
import { RouteCatalogue } from './http/route-catalogue.js';
import { loggerOptions, redactedPaths } from './observability/logger-options.js';
import { packageInfo } from './observability/package-info.js';
import type { Tracing } from './observability/tracing.js';
import { RequestLogController } from './observability/log-controller.js';
import { lazyChildLogger } from './observability/lazy-request-logger.js';
import { installRequestMetrics } from './observability/request-metrics.js';
import { actions } from './actions/index.js';
import { actionRoutes } from './routes/actions.js';
import { adminConsoleRoutes } from './routes/admin-console.js';
import { capabilityRoutes } from './routes/capabilities.js';
import { healthRoutes } from './routes/health.js';
import { openApiRoutes } from './routes/openapi.js';
import { operationsRoutes } from './routes/operations.js';
import { tokenRoutes } from './routes/token.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { Authenticator } from './security/authenticate.js';
import { installRouteGuard, installSecurity } from './security/pipeline.js';
import type { ReplayStore } from './security/replay-store.js';
import './security/route-config.js';
import type { SigningKeyStore } from './security/signing-keys.js';
import type { ApiClientAdmin } from './services/api-client-admin.js';
import type { Clock } from './core/clock.js';
import type { ResourceService } from './services/resource-service.js';
import type { TokenService } from './services/token-service.js';
import type { SecurityEvents } from './security/security-events.js';
import type { Metrics } from './observability/metrics.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { CalendarService } from './calendars/calendar-service.js';
import { buildContainer } from './container/container.js';

export interface AppDeps {
  readonly database: Database;
  readonly keys: SigningKeyStore;
  readonly clock?: Clock;
  readonly replay?: ReplayStore;
  /** pino options, `false` for silence (tests). */
  readonly logger?: FastifyServerOptions['logger'];
  /** Reads TLS certificate files (tests pass an in-memory reader). */
  readonly readFile?: (path: string) => string;
  /** Where the built administration console is (default: `dist/admin` of the package). */
  readonly adminDir?: string;
  /** Request spans (`startTracing`); unset, requests are not traced. */
  readonly tracing?: Tracing;
  /** Counts rate-limit refusals (metrics). */
  readonly onRateLimited?: (group: RateLimitName) => void;
}

/** The running application and the services behind it (used by tests and the CLI). */
export interface App {
  readonly server: FastifyInstance;
  readonly resources: ResourceService;
  readonly apiClients: ApiClientAdmin;
  readonly tokens: TokenService;
  /** Security events waiting to be written to the audit trail. */
  readonly securityEvents: SecurityEvents;
  /** Set by graceful shutdown; `/ready` then answers 503. */
  readonly state: { shuttingDown: boolean };
  /** Every route registered (the OpenAPI document is built from it). */
  readonly routes: RouteCatalogue;
  /** Sends webhook deliveries from the outbox (started by main.ts; tests call runOnce). */
  readonly dispatcher: WebhookDispatcher;
  /** This app's Prometheus metrics (served at `/metrics`). */
  readonly metrics: Metrics;
  /** Calendar feeds and imports (main.ts schedules the imports; tests sync them directly). */
  readonly calendars: CalendarService;
}

/**
 * Builds the service: plugins and routes in a fixed order, no I/O beyond what the passed
 * dependencies do. The caller owns the database and listens.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<App> {
  const https = httpsOptions(config, deps.readFile);
  const server = Fastify({
    ...(https ? { https } : {}),
    logger: deps.logger ?? loggerOptions(config),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    genReqId: () => randomUUID(),
    logController: new RequestLogController(),
    childLoggerFactory: lazyChildLogger,
    requestIdHeader: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    frameworkErrors,
    clientErrorHandler,
    // A request that reaches a connection still open while the server closes is served (with
    // `Connection: close`), not refused: a proxy does not resend a refused POST elsewhere.
    return503OnClosing: false,
  });
  // Before every other hook: the request's span is active through all of them.
  deps.tracing?.instrument(server);
  const state = { shuttingDown: false };
  const container = buildContainer(config, {
    database: deps.database,
    keys: deps.keys,
    log: server.log,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.replay ? { replay: deps.replay } : {}),
  });
  const { clock, metrics, verifier, dpop, clients, tenants, users, events } = container;
  const startedAt = clock.now();
  server.addHook('onClose', () => container.close());
  if (container.messages.writesFiles) server.log.warn({ outbox: join(config.dataDir, 'outbox') }, 'SMTP_URL is not set: sign-in e-mails are written as .eml files, not sent');
  // No offline queue and a command timeout: while Redis is away a counter update fails at
  // once and the limiter lets the request through (docs/operations.md, "Several instances")
  // instead of holding it until Redis returns.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000 }) : undefined;
  if (redis) {
    redis.on('error', (error: Error) => server.log.warn({ err: error }, 'redis unavailable'));
    server.addHook('onClose', async () => {
      await redis.quit().catch(() => undefined);
    });
    // The first requests are counted too: wait (briefly) for the first connection.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  const onRefused = (group: RateLimitName) => {
    metrics.rateLimitRefused(group);
    deps.onRateLimited?.(group);
  };
  const gate = unauthenticatedLimit(config, { ...(redis ? { redis } : {}), onRefused, onStoreError: (error) => server.log.warn({ err: error }, 'pre-authentication limit unavailable') });
  const authenticator = new Authenticator({ verifier, dpop, clock, ...(gate ? { gate } : {}) });

  installRouteGuard(server);
  const methods = new MethodRouter();
  server.addHook('onRoute', (route) => methods.add(route.method, route.url));
  const catalogue = new RouteCatalogue();
  server.addHook('onRoute', (route) => catalogue.add(route));
  installDeprecation(server);
  await installSecurityHeaders(server, config);
  installQueryEncodingCheck(server);
  installSecurity(server, { authenticator, clients, tenants, users, events });
  installRequestMetrics(server, metrics);
  await installRateLimits(server, config, { ...(redis ? { redis } : {}), onRefused });
  server.setErrorHandler(errorHandler);
  server.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = methods.allowed(path);
    if (allowed.length > 0) {
      return sendProblem(request, reply, new ApiError('method_not_allowed', `${request.method} is not supported here; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } }));
    }
    return sendProblem(request, reply, new ApiError('not_found', 'No route matches this path'));
  });

  await server.register(healthRoutes(deps.database, state));
  await server.register(wellKnownRoutes(config, deps.keys));
  await server.register(operationsRoutes({ config, database: deps.database, state, clock, startedAt, metrics, redactedPaths, tokenSigner: deps.keys.signer.description }));
  await server.register(tokenRoutes(container.tokens));
  await server.register(capabilityRoutes);
  await server.register(actionRoutes(actions, container, container.idempotency));
  await server.register(adminConsoleRoutes(deps.adminDir ?? join(packageInfo().root, 'dist', 'admin')));
  await server.register(openApiRoutes(config, catalogue, { updateConflicts: (resource) => container.resources.updateConflicts(resource) }));
  return {
    server,
    dispatcher: container.dispatcher,
    calendars: container.calendars,
    resources: container.resources,
    apiClients: container.apiClients,
    tokens: container.tokens,
    securityEvents: events,
    state,
    metrics,
    routes: catalogue,
  };
}
