import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { loadConfig } from './config/config.js';
import { migrateToLatest } from './db/migrate.js';
import { openDatabase } from './db/open-database.js';
import { acquireDataDirLock } from './db/data-dir-lock.js';
import { chooseEs512Signer } from './security/libcrypto-es512-signer.js';
import { connectionDrain } from './http/connection-drain.js';
import { listenFailure } from './http/listen-failure.js';
import { packageInfo } from './observability/package-info.js';
import { exitAfterLogs, exitOnFatalError, logDestination } from './observability/log-destination.js';
import { loggerOptions } from './observability/logger-options.js';
import { startTracing } from './observability/tracing.js';
import { systemClock } from './core/clock.js';
import { startOrderExpiryJob } from './selling/order-expiry.js';
import { startCalendarSyncJob } from './calendars/calendar-sync-job.js';
import { retentionRowCounts, retentionSettingsFromConfig, startRetentionJob } from './gdpr/retention-job.js';
import { keepPlannerStatisticsCurrent } from './db/planner-statistics.js';
import { openSigningKeys } from './signing-key-source.js';

/** Boots the service: config → database (migrated) → keys → app → listen; SIGTERM drains. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, (path) => readFileSync(path, 'utf8'));
  // One server per SQLite data directory; restore and move-to-postgres refuse while it runs.
  // Released on every way out, process.exit included (crashes leave a stale lock that the
  // next start recognises by its pid).
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir, 'server');
  if (lock) process.on('exit', () => lock.release());
  const database = openDatabase(config);
  const report = await migrateToLatest(database);
  // ES512_SIGNER=libcrypto without a usable system library stops the boot here.
  const { signer, fallbackReason } = await chooseEs512Signer(config.es512Signer);
  const keys = await openSigningKeys(config, Math.floor(Date.now() / 1000), signer);
  const info = packageInfo();
  const tracing = await startTracing({ endpoint: config.otelExporterOtlpEndpoint, serviceName: info.name, serviceVersion: info.version, env: process.env });
  // Asynchronous stdout: every exit below waits for the lines still buffered.
  const logs = logDestination();
  const app = await buildApp(config, { database, keys, logger: loggerOptions(config, logs), ...(tracing ? { tracing } : {}) });
  const log = app.server.log;
  exitOnFatalError(log, logs);
  if (tracing) log.info({ endpoint: config.otelExporterOtlpEndpoint }, 'traces exported over OTLP/HTTP');
  log.info({ storage: database.dialect.name, migrationsApplied: report.applied }, 'database ready');
  for (const warning of (await database.startupWarnings?.()) ?? []) log.warn({ storage: database.dialect.name }, warning);
  if (fallbackReason === undefined) log.info({ es512Signer: signer.name }, `access tokens signed by ${signer.description}`);
  else log.warn({ es512Signer: signer.name, reason: fallbackReason }, `access tokens signed by ${signer.description}, the slower fallback`);
  // Another process (the CLI, another instance) may rotate the key file: pick it up.
  const keyReload = setInterval(() => {
    keys.reload().then(
      (changed) => changed && log.info({ jwks: keys.publicJwks().keys.map((k) => k.kid) }, 'signing keys reloaded'),
      (error: unknown) => log.error({ err: error }, 'signing keys could not be reloaded'),
    );
  }, 60_000);
  keyReload.unref();
  const stopRetention = startRetentionJob(database, retentionSettingsFromConfig(config), config.auditPurgeIntervalMinutes, systemClock, log, (attempt) =>
    app.metrics.retentionAttempt(attempt.outcome, attempt.outcome === 'finished' ? retentionRowCounts(attempt.report) : {}, systemClock.now()),
  );
  const stopStatistics = keepPlannerStatisticsCurrent(database, log);
  const stopOrderExpiry = startOrderExpiryJob(database, config.orderExpirySweepSeconds, systemClock, log);
  const stopCalendarSync = startCalendarSyncJob(database, systemClock, app.calendars.sync, config.calendarSyncSeconds, log);
  app.dispatcher.start();

  const connections = connectionDrain(app.server.server);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.state.shuttingDown = true;
    log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: no new connections, finishing in-flight requests');
    const timer = setTimeout(() => {
      log.error('grace period over; exiting with requests still open');
      exitAfterLogs(logs, 1);
    }, config.shutdownGraceMs);
    timer.unref();
    try {
      clearInterval(keyReload);
      connections.drain();
      // Stop listening first: a purge run still going must not keep the port accepting.
      await Promise.all([app.server.close(), stopRetention(), stopStatistics(), stopOrderExpiry(), stopCalendarSync(), app.dispatcher.stop()]);
      await database.close();
      await tracing?.shutdown().catch((error: unknown) => log.warn({ err: error }, 'last spans not exported'));
      clearTimeout(timer);
      log.info('shutdown complete');
      exitAfterLogs(logs, 0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      exitAfterLogs(logs, 1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // A port in use or privileged, a HOST that does not resolve or is no address of this machine.
  await app.server.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    throw listenFailure(error, config.host, config.port);
  });
  log.info({ publicUrl: config.publicUrl, tokenEndpoint: config.tokenEndpoint }, 'service listening');
}

main().catch((error: unknown) => {
  console.error('startup failed:', error instanceof Error ? error.message : error);
  if (error instanceof Error && error.cause) console.error('cause:', error.cause);
  process.exit(1);
});
