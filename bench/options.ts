import { parseArgs } from 'node:util';

export const serviceScenarios = [
  'token-bearer',
  'token-dpop',
  'get-bearer',
  'get-bearer-warn',
  'get-bearer-traced',
  'get-dpop',
  'list-filtered',
  'create',
  'update',
  'audit-export',
  'cluster',
  'garbage-bearer',
  'webhook-delivery',
  'book-contended',
  'availability-product',
  'availability-search',
  'book',
  'quote',
  'order-create',
  'checkout-contended',
  'calendar-export',
  'calendar-import',
  'refuse-busy',
  'erase-under-load',
] as const;
export const referenceScenarios = ['crypto-limit', 'bare-fastify', 'bare-fastify-sqlite', 'oidc-provider'] as const;
export type ServiceScenario = (typeof serviceScenarios)[number];
export type ReferenceScenario = (typeof referenceScenarios)[number];
export type ScenarioName = ServiceScenario | ReferenceScenario;

export interface BenchOptions {
  /** Seconds measured per scenario. */
  readonly duration: number;
  /** Seconds of unmeasured load before each measurement (JIT, caches, pools). */
  readonly warmup: number;
  readonly connections: number;
  readonly database: 'sqlite' | 'postgres';
  /** Only with `database: 'postgres'`: the server to create the throwaway database on. */
  readonly databaseUrl: string | undefined;
  readonly scenarios: ReadonlySet<ScenarioName>;
  /** Largest worker count of the `cluster` scenario (it runs 1 and then this many). */
  readonly workers: number;
  /** Bookings of the measured tenant and audit entries to export. */
  readonly rows: number;
  /** Directory for V8 CPU profiles of every service process (`--cpu-prof`), or null. */
  readonly profileDir: string | null;
  /** Another checkout whose service is measured instead of this one's (an A/B against an older commit), or null. */
  readonly serviceDir: string | null;
  /** Rounds of the selected scenarios, one after another; ratios are reported per round and as the median. */
  readonly repeat: number;
  /** Concurrent connections of `book-contended` (all booking one product) and `checkout-contended` (all ordering one). */
  readonly contenders: number;
  /**
   * SQLite only: `ANALYZE` after seeding the booking catalogue. Off by default: the service
   * gathers its own statistics (`PRAGMA optimize` after migrations and each retention run).
   */
  readonly analyze: boolean;
}

export const usage = `Usage: npm run bench -- [options]

  --duration <s>        measured seconds per scenario (default 10)
  --warmup <s>          unmeasured load before each measurement (default 2)
  --connections <n>     concurrent keep-alive connections (default 10)
  --database <name>     sqlite | postgres (default: postgres when DATABASE_URL is set, else sqlite);
                        postgres creates and drops a throwaway database on DATABASE_URL's server
  --scenario <a,b,...>  ${[...serviceScenarios, ...referenceScenarios].join(', ')} (default all)
  --workers <n>         largest worker count of the cluster scenario (default 2)
  --rows <n>            bookings in the measured tenant and audit entries to export (default 100000)
  --profile <dir>       write a V8 CPU profile of each service process into <dir> (open in Chrome DevTools)
  --service <dir>       measure the service of another checkout (e.g. an older commit unpacked with
                        git archive), seeded and driven by this one; same database schema required
  --repeat <n>          run the selected scenarios n times in rounds (default 1); the table shows each
                        scenario's median round, the targets the median ratio and every round's ratio
  --contenders <n>      concurrent connections booking (book-contended) or ordering (checkout-contended)
                        one product (default 100)
  --analyze             SQLite: gather planner statistics (ANALYZE) after seeding the booking catalogue;
                        off by default: the service runs PRAGMA optimize itself (PostgreSQL is always analysed)`;

function positive(name: string, value: string | undefined, integer: boolean): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return number;
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      database: { type: 'string' },
      scenario: { type: 'string' },
      workers: { type: 'string', default: '2' },
      rows: { type: 'string', default: '100000' },
      profile: { type: 'string' },
      service: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      contenders: { type: 'string', default: '100' },
      analyze: { type: 'boolean', default: false },
    },
  });
  const database = values.database ?? (env.DATABASE_URL ? 'postgres' : 'sqlite');
  if (database !== 'sqlite' && database !== 'postgres') throw new Error('--database must be sqlite or postgres');
  if (database === 'postgres' && !env.DATABASE_URL) throw new Error('--database postgres needs DATABASE_URL (a server where the benchmark may create a database)');
  const known: readonly string[] = [...serviceScenarios, ...referenceScenarios];
  const names = values.scenario
    ? values.scenario
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : known;
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}`);
  const workers = positive('workers', values.workers, true);
  if (workers < 2) throw new Error('--workers must be at least 2 (the cluster scenario compares 1 with n)');
  const warmup = Number(values.warmup);
  if (!Number.isFinite(warmup) || warmup < 0) throw new Error('--warmup must be 0 or more');
  return {
    duration: positive('duration', values.duration, false),
    warmup,
    connections: positive('connections', values.connections, true),
    database,
    databaseUrl: database === 'postgres' ? env.DATABASE_URL : undefined,
    scenarios: new Set(names as ScenarioName[]),
    workers,
    rows: positive('rows', values.rows, true),
    profileDir: values.profile ?? null,
    serviceDir: values.service ?? null,
    repeat: positive('repeat', values.repeat, true),
    contenders: positive('contenders', values.contenders, true),
    analyze: values.analyze,
  };
}
