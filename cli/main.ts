import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open-database.js';
import type { Database } from '../src/db/dialect.js';
import { ApiError } from '../src/http/errors.js';
import { buildOperatorServices } from './operator-services.js';
import type { OperatorServices } from './operator-services.js';

const usage = `Usage: npm run --silent cli -- <command> [options]

  tenant create --name N [--level partner|parent_tenant|tenant] [--parent ID] [--currency EUR]
  client create --name N --tenant ID|system --capabilities "a:b c:d" --public-key FILE [--kid K] [--ip-allow CIDR,CIDR]
  client add-key --client ID --public-key FILE [--kid K] [--overlap-days N]

Runs against the storage the server uses (DATA_DIR, DATABASE_URL) and prints one JSON object.`;

type Handler = (services: OperatorServices, values: Record<string, string | undefined>) => Promise<unknown>;

const commands: Record<string, { options: Record<string, { type: 'string' }>; run: Handler }> = {
  'tenant create': {
    options: { name: { type: 'string' }, level: { type: 'string' }, parent: { type: 'string' }, currency: { type: 'string' } },
    run: (s, v) => s.createTenant({ name: v.name, level: v.level, parent: v.parent, currency: v.currency }),
  },
  'client create': {
    options: { name: { type: 'string' }, tenant: { type: 'string' }, capabilities: { type: 'string' }, 'public-key': { type: 'string' }, kid: { type: 'string' }, 'ip-allow': { type: 'string' } },
    run: (s, v) => s.createClient({ name: v.name, tenant: v.tenant, capabilities: v.capabilities, publicKeyFile: v['public-key'], kid: v.kid, ipAllow: v['ip-allow'] }),
  },
  'client add-key': {
    options: { client: { type: 'string' }, 'public-key': { type: 'string' }, kid: { type: 'string' }, 'overlap-days': { type: 'string' } },
    run: (s, v) => s.addClientKey({ client: v.client, publicKeyFile: v['public-key'], kid: v.kid, overlapDays: v['overlap-days'] }),
  },
};

async function main(argv: readonly string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    console.error(usage);
    return 2;
  }
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv.slice(2)], options: command.options, strict: true, allowPositionals: false }) as { values: Record<string, string | undefined> });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const config = loadConfig(process.env, (path) => readFileSync(path, 'utf8'));
  let database: Database | undefined;
  try {
    database = openDatabase(config);
    await migrateToLatest(database);
    const result = await command.run(buildOperatorServices(config, database), values);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const body = error instanceof ApiError ? { error: error.code, detail: error.message, ...(error.errors ? { errors: error.errors } : {}) } : { error: 'failed', detail: (error as Error).message };
    process.stdout.write(`${JSON.stringify(body)}\n`);
    return 1;
  } finally {
    await database?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
