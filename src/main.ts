import { readFileSync } from 'node:fs';
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { buildApp, redactedPaths } from './app.js';
import { loadConfig } from './config/config.js';
import type { Config } from './config/config.js';
import { migrateToLatest } from './db/migrate.js';
import { openDatabase } from './db/open-database.js';
import { openSigningKeys } from './signing-key-source.js';

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

/** pino options of the running service: headers and bodies redacted, URLs stripped of values. */
function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: [...redactedPaths], censor: '[redacted]' },
    serializers: {
      req: (request: FastifyRequest) => ({ method: request.method, url: loggableUrl(request.url), host: request.host, remoteAddress: request.ip, remotePort: request.socket?.remotePort }),
    },
  };
}

/** Boots the service: config → database (migrated) → keys → app → listen; SIGTERM drains. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, (path) => readFileSync(path, 'utf8'));
  const database = openDatabase(config);
  const report = await migrateToLatest(database);
  const keys = await openSigningKeys(config, Math.floor(Date.now() / 1000));
  const app = await buildApp(config, { database, keys, logger: loggerOptions(config) });
  const log = app.server.log;
  log.info({ storage: database.dialect.name, migrationsApplied: report.applied }, 'database ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.state.shuttingDown = true;
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      log.error('grace period over; exiting with requests still open');
      process.exit(1);
    }, config.shutdownGraceMs);
    timer.unref();
    try {
      await app.server.close();
      await database.close();
      log.info('shutdown complete');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.server.listen({ port: config.port, host: config.host });
  log.info({ publicUrl: config.publicUrl, tokenEndpoint: config.tokenEndpoint }, 'service listening');
}

main().catch((error: unknown) => {
  console.error('startup failed:', error instanceof Error ? error.message : error);
  if (error instanceof Error && error.cause) console.error('cause:', error.cause);
  process.exit(1);
});
