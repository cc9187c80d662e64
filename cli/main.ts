import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import type { Config } from '../src/config/config.js';
import { DataDirInUseError } from '../src/db/data-dir-lock.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/dialect.js';
import { ApiError } from '../src/http/errors.js';
import { backup, restore } from './backup.js';
import { openCliDatabase } from './cli-database.js';
import { keygen } from './keygen.js';
import { moveToPostgres } from './move-to-postgres.js';
import { OperatorError, exitStatusOf, isUsageError, usageError } from './operator-error.js';
import { buildOperatorServices } from './operator-services.js';
import type { OperatorServices } from './operator-services.js';
import { token } from './token.js';

const usage = `Usage: npm run --silent cli -- <command> [options]

  tenant create --name N [--level partner|parent_tenant|tenant] [--parent ID|system] [--currency EUR]
  client create --name N (--tenant ID|system | --new-tenant NAME) --capabilities "a:b c:d"
                (--public-key FILE | --generate-key NAME) [--kid K] [--ip-allow CIDR,CIDR]
  client add-key --client ID --public-key FILE [--kid K] [--overlap-days N]
  keys rotate                 (adds an access-token signing key; it signs after SIGNING_KEY_PUBLISH_DELAY_SECONDS)
  actions                     (lists every declared action: <resource>.<name>, method, path, capability)
  action run --action R.N [--tenant ID|system] [--id ID] [--body JSON] [--if-match ETAG] [--query "k=v&k2=v2"]
                              (runs a declared action as the operator; prints {status, etag?, body?})
  audit purge                 (deletes audit entries past their retention now)
  keygen --out NAME           (P-256 key pair for a client: NAME.key, PKCS8 PEM mode 0600; NAME.pub, SPKI PEM)
  token --client ID --key FILE [--scope "a:b c:d"] [--dpop] [--dpop-key FILE] [--kid K] [--url URL]
                              (an access token from the running service at --url, default PUBLIC_URL)
  retention run [--dry-run]   (applies every retention policy now; --dry-run only counts)
  retention run --all         (one whole run of the background retention job now: audit purge, expired
                              idempotency keys, webhook and sign-in history, tenant contacts, policies)
  backup --to FILE            (SQLite: online, consistent copy of the database and its key files into one tar file)
  restore --from FILE [--force]
                              (SQLite: into DATA_DIR; refused while a server runs there, and into a
                              non-empty DATA_DIR unless --force)
  move-to-postgres --to postgres://…
                              (copies every table of DATA_DIR's SQLite database into an empty PostgreSQL
                              database, verified by row counts and checksums; the service must be stopped)

Runs against the storage the server uses (DATA_DIR, DATABASE_URL) and prints one JSON object
on stdout: the result, or {"error", "detail"}. Exit status: 0 done; 1 refused or failed; 2 usage
error ({"error":"usage"}: unknown command or action, unknown, missing or malformed option).`;

type Handler = (services: OperatorServices, values: Record<string, string | undefined>) => Promise<unknown>;
/** A command that manages the storage itself: it gets the settings, and opens what it needs. */
type StorageHandler = (config: Config, values: Record<string, string | undefined>) => Promise<unknown>;

type Command = { options: Record<string, { type: 'string' | 'boolean' }> } & ({ run: Handler; storage?: undefined } | { storage: StorageHandler; run?: undefined });

const commands: Record<string, Command> = {
  backup: {
    options: { to: { type: 'string' } },
    storage: async (config, v) => backup(config, { to: v.to }),
  },
  restore: {
    // A boolean flag: parseArgs gives `true` when present.
    options: { from: { type: 'string' }, force: { type: 'boolean' } },
    storage: (config, v) => restore(config, { from: v.from, force: Boolean(v.force) }),
  },
  'move-to-postgres': {
    options: { to: { type: 'string' } },
    storage: (config, v) => moveToPostgres(config, { to: v.to }),
  },
  'tenant create': {
    options: { name: { type: 'string' }, level: { type: 'string' }, parent: { type: 'string' }, currency: { type: 'string' } },
    run: (s, v) => s.createTenant({ name: v.name, level: v.level, parent: v.parent, currency: v.currency }),
  },
  'client create': {
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      'new-tenant': { type: 'string' },
      capabilities: { type: 'string' },
      'public-key': { type: 'string' },
      'generate-key': { type: 'string' },
      kid: { type: 'string' },
      'ip-allow': { type: 'string' },
    },
    run: (s, v) =>
      s.createClient({
        name: v.name,
        tenant: v.tenant,
        newTenant: v['new-tenant'],
        capabilities: v.capabilities,
        publicKeyFile: v['public-key'],
        generateKey: v['generate-key'],
        kid: v.kid,
        ipAllow: v['ip-allow'],
      }),
  },
  'client add-key': {
    options: { client: { type: 'string' }, 'public-key': { type: 'string' }, kid: { type: 'string' }, 'overlap-days': { type: 'string' } },
    run: (s, v) => s.addClientKey({ client: v.client, publicKeyFile: v['public-key'], kid: v.kid, overlapDays: v['overlap-days'] }),
  },
  actions: {
    options: {},
    run: async (s) => s.listActions(),
  },
  'action run': {
    options: { action: { type: 'string' }, tenant: { type: 'string' }, id: { type: 'string' }, body: { type: 'string' }, 'if-match': { type: 'string' }, query: { type: 'string' } },
    run: (s, v) => s.runAction({ action: v.action, tenant: v.tenant, id: v.id, body: v.body, ifMatch: v['if-match'], query: v.query }),
  },
  'keys rotate': {
    options: {},
    run: (s) => s.rotateSigningKey(),
  },
  'audit purge': {
    options: {},
    run: (s) => s.purgeAudit(),
  },
  keygen: {
    options: { out: { type: 'string' } },
    run: (_s, v) => keygen({ out: v.out }),
  },
  token: {
    options: {
      client: { type: 'string' },
      key: { type: 'string' },
      scope: { type: 'string' },
      dpop: { type: 'boolean' },
      'dpop-key': { type: 'string' },
      kid: { type: 'string' },
      url: { type: 'string' },
    },
    // parseArgs gives a boolean option `true` when present.
    run: (_s, v) => token({ client: v.client, key: v.key, scope: v.scope, dpop: v.dpop !== undefined, dpopKey: v['dpop-key'], kid: v.kid, url: v.url }),
  },
  'retention run': {
    // A boolean flag: parseArgs gives `true` when present.
    options: { 'dry-run': { type: 'boolean' }, all: { type: 'boolean' } },
    run: (s, v) => s.runRetention(Boolean(v['dry-run']), Boolean(v.all)),
  },
};

/** The one JSON object every run prints, so scripts can always parse stdout. */
function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function errorBody(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) return { error: error.code, detail: error.message, ...(error.errors ? { errors: error.errors } : {}) };
  if (error instanceof OperatorError) return { error: error.code, detail: error.message, ...error.details };
  if (error instanceof DataDirInUseError) return { error: error.code, detail: error.message, holder: error.holder };
  return { error: 'failed', detail: error instanceof Error ? error.message : String(error) };
}

/**
 * Every way a command ends in error: the JSON on stdout for scripts and the exit status, the
 * same for a usage error found while parsing and one a command finds (a missing option); a
 * usage error also prints the usage text on stderr, for people.
 */
function fail(error: unknown): number {
  print(errorBody(error));
  if (isUsageError(error)) console.error(`${error.message}\n\n${usage}`);
  return exitStatusOf(error);
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  // Commands are two words (`tenant create`) or one (`keygen`, `token`).
  const twoWords = argv.slice(0, 2).join(' ');
  const name = !Object.hasOwn(commands, twoWords) && Object.hasOwn(commands, argv[0] ?? '') ? (argv[0] ?? '') : twoWords;
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) return fail(usageError(name ? `unknown command "${name}"` : 'no command given'));
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv.slice(name.split(' ').length)], options: command.options, strict: true, allowPositionals: false }) as { values: Record<string, string | undefined> });
  } catch (error) {
    return fail(usageError((error as Error).message));
  }
  let database: Database | undefined;
  try {
    // Inside the try: a bad setting is reported like any other failure, as JSON.
    const config = loadConfig(process.env, (path) => readFileSync(path, 'utf8'));
    if (command.storage) {
      print(await command.storage(config, values));
      return 0;
    }
    database = openCliDatabase(config);
    await migrateToLatest(database);
    const operator = await buildOperatorServices(config, database);
    try {
      print(await command.run(operator, values));
    } finally {
      await operator.close();
    }
    return 0;
  } catch (error) {
    return fail(error);
  } finally {
    await database?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
