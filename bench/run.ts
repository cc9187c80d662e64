/**
 * `npm run bench`: starts the real service in a child process on fresh storage, seeds it
 * with the operator CLI's services, and drives it over loopback with autocannon from this
 * process (one thread; the service never shares its event loop). Reference servers run in
 * their own processes with the same settings. With `--repeat n` the scenarios run in n
 * rounds and the targets are judged on the median ratio. Prints one table and writes
 * bench/results/<date>-<database>.json. See BENCHMARKS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { freePort } from '../test/support/free-port.js';
import { createFixtures } from './fixtures.js';
import type { CryptoLimitReport } from './crypto-limit.js';
import type { BenchContext, ScenarioResult } from './harness.js';
import { missingLoadGeneratorFlags } from './load-generator-flags.js';
import { machineInfo } from './machine.js';
import { parseOptions, usage } from './options.js';
import type { BenchOptions, ScenarioName } from './options.js';
import { createThrowawayDatabase } from './postgres-database.js';
import type { ThrowawayDatabase } from './postgres-database.js';
import { clusterScaling, formatReport, medianRatios, medianResults, ratios, writeReport } from './report.js';
import type { RunReport } from './report.js';
import { auditExportScenario } from './scenarios/audit-export.js';
import { availabilityProductScenario, availabilitySearchScenario } from './scenarios/availability.js';
import { bookContendedScenario } from './scenarios/book-contended.js';
import { calendarExportScenario, calendarImportScenario } from './scenarios/calendars.js';
import { clusterScenario } from './scenarios/cluster.js';
import { createScenario } from './scenarios/create.js';
import { eraseUnderLoadScenario } from './scenarios/erase-under-load.js';
import { garbageBearerScenario } from './scenarios/garbage-bearer.js';
import { getQuietScenario, getScenario, getTracedScenario } from './scenarios/get-product.js';
import { listFilteredScenario } from './scenarios/list-filtered.js';
import { bareFastify, bareFastifySqlite, cryptoLimit, oidcProvider } from './scenarios/references.js';
import { refuseBusyScenario } from './scenarios/refuse-busy.js';
import { bookScenario, checkoutContendedScenario, orderCreateScenario, quoteScenario } from './scenarios/selling.js';
import { tokenScenario } from './scenarios/token.js';
import { updateScenario } from './scenarios/update.js';
import { webhookDeliveryScenario } from './scenarios/webhook-delivery.js';
import { withStorage } from './seed-storage.js';
import { serviceEntry } from './service-entry.js';

/** References a scenario is compared with (or sized by) run whenever that scenario runs. */
const needs: Partial<Record<ScenarioName, readonly ScenarioName[]>> = {
  'token-bearer': ['crypto-limit', 'oidc-provider'],
  'token-dpop': ['crypto-limit'],
  'get-dpop': ['crypto-limit'],
  'get-bearer': ['bare-fastify', 'bare-fastify-sqlite'],
  // Tracing's and the access log's costs are judged against get-bearer in the same round.
  'get-bearer-traced': ['get-bearer'],
  'get-bearer-warn': ['get-bearer'],
  cluster: ['crypto-limit'],
  // Selling is judged against the plain booking create and book-contended of the same round.
  quote: ['book'],
  'order-create': ['book'],
  'checkout-contended': ['book-contended'],
  // A feed's CPU per request is reported beside one product's availability.
  'calendar-export': ['availability-product'],
  'oidc-provider': ['crypto-limit'],
};

const serviceRuns: readonly [ScenarioName, (ctx: BenchContext) => Promise<ScenarioResult | ScenarioResult[]>][] = [
  ['token-bearer', (ctx) => tokenScenario(ctx, false)],
  ['token-dpop', (ctx) => tokenScenario(ctx, true)],
  ['get-bearer', (ctx) => getScenario(ctx, false)],
  ['get-bearer-warn', getQuietScenario],
  ['get-bearer-traced', getTracedScenario],
  ['get-dpop', (ctx) => getScenario(ctx, true)],
  ['list-filtered', listFilteredScenario],
  ['create', createScenario],
  ['update', updateScenario],
  ['audit-export', auditExportScenario],
  ['cluster', clusterScenario],
  ['garbage-bearer', garbageBearerScenario],
  ['webhook-delivery', webhookDeliveryScenario],
  ['book-contended', bookContendedScenario],
  ['availability-product', availabilityProductScenario],
  ['availability-search', availabilitySearchScenario],
  ['book', bookScenario],
  ['quote', quoteScenario],
  ['order-create', orderCreateScenario],
  ['checkout-contended', checkoutContendedScenario],
  ['calendar-export', calendarExportScenario],
  ['calendar-import', calendarImportScenario],
  ['refuse-busy', refuseBusyScenario],
  ['erase-under-load', eraseUnderLoadScenario],
];

function withReferences(selected: ReadonlySet<ScenarioName>): Set<ScenarioName> {
  const all = new Set(selected);
  for (const name of selected) for (const reference of needs[name] ?? []) all.add(reference);
  return all;
}

async function main(options: BenchOptions): Promise<number> {
  const scenarios = withReferences(options.scenarios);
  const machine = machineInfo();
  const date = new Date().toISOString();
  const workDir = mkdtempSync(join(tmpdir(), 'booking-bench-'));
  process.once('exit', () => rmSync(workDir, { recursive: true, force: true }));
  let postgres: ThrowawayDatabase | undefined;
  let failures = 0;
  try {
    if (options.databaseUrl) postgres = await createThrowawayDatabase(options.databaseUrl);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const serviceEnv: Record<string, string> = {
      DATA_DIR: join(workDir, 'data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: origin,
      RATE_LIMIT_ENABLED: 'false',
      NODE_ENV: 'production',
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    };
    // The child inherits this process's environment; a DATABASE_URL there must not leak into a
    // SQLite run, nor an OTLP endpoint into the untraced scenarios (only get-bearer-traced sets
    // one), nor a LOG_LEVEL: the service runs at its default level (info), as shipped.
    const childEnv = { ...serviceEnv, DATABASE_URL: postgres?.url, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, LOG_LEVEL: undefined };
    const config = loadConfig(serviceEnv);
    const entry = serviceEntry(options.profileDir, options.serviceDir ?? undefined);
    console.error(`bench: ${options.database}, service ${entry.label}, ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s per scenario`);
    const missingFlags = missingLoadGeneratorFlags();
    if (missingFlags.length > 0) {
      console.error(
        `bench: WARNING: this process runs without ${missingFlags.join(' ')}: after book-contended its own young-generation pauses inflate the next scenarios' latencies. Start it with \`npm run bench\`.`,
      );
    }
    if (!entry.built) {
      console.error(
        'bench: WARNING: dist/ is missing or older than src/, so the sources run through tsx; its compiler stays resident (RSS, CPU). `npm run build` first to measure what `npm start` runs.',
      );
    }

    const fixtures = await withStorage(config, (database) => createFixtures(config, database, { connections: options.connections, workDir }));
    let crypto: CryptoLimitReport | undefined;
    if (scenarios.has('crypto-limit')) {
      console.error('crypto-limit …');
      crypto = await cryptoLimit(options.connections, Math.min(3, Math.max(1, options.duration / 4)));
    }
    // Servers write their log lines to a file, as an operator redirects stdout.
    const ctx: BenchContext = { options, config, origin, tokenEndpoint: config.tokenEndpoint, serviceEnv: childEnv, entry, fixtures, crypto, logFile: join(workDir, 'server.log') };
    const rounds: ScenarioResult[][] = [];
    for (let round = 1; round <= options.repeat; round++) {
      const results: ScenarioResult[] = [];
      const attempt = async (name: string, run: () => Promise<ScenarioResult | ScenarioResult[]>) => {
        console.error(options.repeat > 1 ? `${name} (round ${round} of ${options.repeat}) …` : `${name} …`);
        try {
          results.push(...[await run()].flat());
        } catch (error) {
          failures += 1;
          console.error(`  ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      };
      if (scenarios.has('bare-fastify')) await attempt('bare-fastify', () => bareFastify(ctx, workDir));
      if (scenarios.has('bare-fastify-sqlite')) {
        if (options.database === 'sqlite') await attempt('bare-fastify-sqlite', () => bareFastifySqlite(ctx));
        else if (round === 1) console.error('bare-fastify-sqlite skipped: it reads the service’s SQLite file (SQLite runs only)');
      }
      if (scenarios.has('oidc-provider')) await attempt('oidc-provider', () => oidcProvider(ctx));
      for (const [name, run] of serviceRuns) if (scenarios.has(name)) await attempt(name, () => run(ctx));
      rounds.push(results);
    }
    const results = medianResults(rounds);

    const report: RunReport = {
      date,
      database: options.database,
      service: entry.label,
      loadGenerator: `autocannon 8 (programmatic API) on one thread of the benchmark process (${missingFlags.length === 0 ? 'V8 allocation-site pretenuring off' : 'V8 defaults'}); every server in its own process`,
      options: {
        duration: options.duration,
        warmup: options.warmup,
        connections: options.connections,
        database: options.database,
        workers: options.workers,
        rows: options.rows,
        profileDir: options.profileDir,
        repeat: options.repeat,
        contenders: options.contenders,
        analyze: options.analyze,
        scenarios: [...scenarios],
      },
      machine,
      crypto: crypto ?? null,
      results,
      rounds: options.repeat > 1 ? rounds : null,
      ratios: medianRatios(
        rounds.map((round) => ratios(round, crypto ?? null, options.database)),
        options.database,
      ),
      clusterScaling: clusterScaling(results, options.workers),
    };
    process.stdout.write(`${formatReport(report)}\n`);
    console.error(`\nwrote ${writeReport(report)}`);
  } finally {
    await postgres?.drop().catch((error: unknown) => console.error(`could not drop the throwaway database: ${String(error)}`));
  }
  return failures > 0 ? 1 : 0;
}

process.on('SIGINT', () => process.exit(130));
let options: BenchOptions;
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  process.exit(2);
}
process.exitCode = await main(options);
