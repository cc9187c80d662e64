import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { Config } from '../src/config/config.js';
import type { Database } from '../src/db/dialect.js';
import { runUnitOfWork } from '../src/data/unit-of-work.js';
import { executeAction } from '../src/handlers/execute.js';
import { checkInput } from '../src/actions/input-schemas.js';
import { actionKey, actions, findAction } from '../src/actions/index.js';
import { ApiError, validationError } from '../src/http/errors.js';
import { checkKeyFilesFree, generateClientKey, writeKeyFiles } from './keygen.js';
import { requireOption as need, usageError } from './operator-error.js';
import type { QueryString } from '../src/query/list-query.js';
import { asSystem, systemNodeId } from '../src/core/principal.js';
import type { TenantScope } from '../src/core/principal.js';
import { applyRetentionPolicies } from '../src/gdpr/retention-policies.js';
import { retentionRowCounts, retentionSettingsFromConfig, runRetention } from '../src/gdpr/retention-job.js';
import { purgeExpiredAudit, retentionFromConfig } from '../src/services/audit-retention.js';
import { systemClock } from '../src/core/clock.js';
import { buildContainer } from '../src/container/container.js';
import { openSigningKeys } from '../src/signing-key-source.js';
import type { RequestContext } from '../src/core/request-context.js';

type Maybe = string | undefined;

function readKey(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw validationError([{ field: '--public-key', message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw usageError('--body is not valid JSON', '--body');
  }
}

/** The HTTP header a system caller names its tenant node with, and the CLI's flag for it. */
const tenantHeader = 'X-Tenant-Id';
const tenantFlag = '--tenant';

/**
 * The API's problem as the operator should read it: the services speak of the request's
 * `X-Tenant-Id` header, which on the command line is the `--tenant` flag. The HTTP answer
 * is unchanged; only the CLI's copy is renamed.
 */
export function asCliProblem(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const errors = error.errors?.map((e) => (e.field === tenantHeader ? { ...e, field: tenantFlag } : e));
  const named = error.message.includes(tenantHeader) || errors?.some((e) => e.field === tenantFlag);
  if (!named) return error;
  return new ApiError(error.code, error.message.replaceAll(tenantHeader, tenantFlag), {
    ...(errors ? { errors: errors.map((e) => ({ ...e, message: e.message.replaceAll(tenantHeader, tenantFlag) })) } : {}),
    headers: error.headers,
    extensions: error.extensions,
    cause: error,
  });
}

/** A declared action's result as one JSON value (streams, i.e. exports, are not for the CLI). */
interface ActionOutput {
  readonly status: number;
  readonly etag?: string;
  readonly body?: unknown;
}

/**
 * The operator's commands. They run the declared actions through the same executor and the
 * same services as the HTTP API (the container, `src/container/container.ts`), as the
 * `system` actor acting in the tenant node the operator names. Services log warnings to
 * stderr: stdout carries the one JSON result.
 */
export async function buildOperatorServices(config: Config, database: Database) {
  const keys = await openSigningKeys(config, Math.floor(systemClock.now() / 1000));
  const log = pino({ level: 'warn' }, pino.destination(2));
  const services = buildContainer(config, { database, keys, log });
  const { tenants } = services;
  const system = asSystem();

  async function contextIn(tenant: Maybe, flag = '--tenant'): Promise<RequestContext> {
    let scope: TenantScope | undefined = system.scope;
    if (tenant !== undefined) {
      scope = await tenants.resolve(tenant);
      if (!scope) throw validationError([{ field: flag, message: `no tenant node ${tenant}` }]);
    }
    return { principal: { ...system, scope }, clientIp: null, requestId: null };
  }

  /** Runs the action `<resource>.<name>` as the operator. */
  async function run(key: string, input: { tenant?: Maybe; id?: Maybe; body?: unknown; ifMatch?: Maybe; query?: QueryString }): Promise<ActionOutput> {
    const action = findAction(key);
    if (!action) throw usageError(`--action: unknown action ${key}; see "actions"`, '--action', `unknown action ${key}; see "actions"`);
    if (action.path.includes(':id')) need(input.id, '--id', ` by ${key}`);
    if (action.rateLimitGroup === 'exports') throw usageError(`--action ${key}: exports stream; use GET /v1/{resource}/export`, '--action');
    const result = await executeAction(
      action,
      {
        context: await contextIn(input.tenant),
        params: input.id ? { id: input.id } : {},
        query: input.query ?? {},
        body: input.body,
        ifMatch: input.ifMatch,
        url: action.path.replace(':id', input.id ?? ''),
      },
      services,
    ).catch((error: unknown) => {
      throw asCliProblem(error);
    });
    return { status: result.status, ...(result.headers?.etag ? { etag: result.headers.etag } : {}), ...(result.body === undefined ? {} : { body: result.body }) };
  }

  return {
    /** The container the commands run on (the benchmark seeds through it). */
    services,

    /** Writes the security events still queued; call before closing the database. */
    close: () => services.close(),

    /** Every declared action: what `action` can run. */
    listActions() {
      return { items: actions.map((a) => ({ action: actionKey(a), method: a.method, path: a.path, capability: a.capability })), total: actions.length };
    },

    /** `action <resource>.<name>`: any declared action, JSON body and query as given. */
    runAction(input: { action: Maybe; tenant: Maybe; id: Maybe; body: Maybe; ifMatch: Maybe; query: Maybe }) {
      const query = Object.fromEntries(new URLSearchParams(input.query ?? '')) as QueryString;
      return run(need(input.action, '--action'), { tenant: input.tenant, id: input.id, ifMatch: input.ifMatch, query, ...(input.body === undefined ? {} : { body: parseJsonBody(input.body) }) });
    },

    async createTenant(input: { name: Maybe; level: Maybe; parent: Maybe; currency: Maybe }) {
      const body: Record<string, unknown> = { name: need(input.name, '--name') };
      if (input.level) body.level = input.level;
      // `system` names the built-in root node (docs/tenancy.md), which nodes below it record as no parent.
      if (input.parent) body.parent_id = input.parent === systemNodeId ? null : input.parent;
      if (input.currency) body.currency = input.currency;
      return (await run('tenants.create', { body })).body as Record<string, unknown>;
    },

    /**
     * A client in an existing node (`--tenant`) or in a new tenant node (`--new-tenant NAME`),
     * with a public key from a file (`--public-key`) or a new pair written next to it
     * (`--generate-key NAME` → NAME.key, NAME.pub). Everything is checked before anything
     * is written, so a refused client leaves no tenant or key files behind.
     */
    async createClient(input: { name: Maybe; tenant: Maybe; newTenant?: Maybe; capabilities: Maybe; publicKeyFile: Maybe; generateKey?: Maybe; kid: Maybe; ipAllow: Maybe }) {
      if ((input.tenant === undefined) === (input.newTenant === undefined)) throw usageError('give either --tenant ID or --new-tenant NAME', '--tenant');
      if ((input.publicKeyFile === undefined) === (input.generateKey === undefined)) throw usageError('give either --public-key FILE or --generate-key NAME', '--public-key');
      // The command line first (exit 2), then the files (a refusal, exit 1).
      const name = need(input.name, '--name');
      const capabilities = need(input.capabilities, '--capabilities');
      if (input.newTenant !== undefined) need(input.newTenant, '--new-tenant');
      const keyOut = input.generateKey === undefined ? undefined : checkKeyFilesFree(input.generateKey, '--generate-key');
      const generated = keyOut === undefined ? undefined : await generateClientKey();
      const body: Record<string, unknown> = {
        name,
        capabilities: capabilities.split(/[\s,]+/).filter(Boolean),
        public_key: generated ? generated.publicPem : readKey(need(input.publicKeyFile, '--public-key')),
      };
      if (input.kid) body.kid = input.kid;
      if (input.ipAllow)
        body.ip_allowlist = input.ipAllow
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      const create = findAction('api-clients.create');
      if (create) checkInput(create, { params: {}, query: {}, body });
      let tenant = input.tenant;
      let createdTenant: Record<string, unknown> | undefined;
      if (input.newTenant !== undefined) {
        createdTenant = await this.createTenant({ name: need(input.newTenant, '--new-tenant'), level: undefined, parent: undefined, currency: undefined });
        tenant = String(createdTenant._id);
      }
      const record = (await run('api-clients.create', { tenant, body })).body as Record<string, unknown>;
      const keys = record.keys as { kid: string }[];
      const files = keyOut && generated ? writeKeyFiles(keyOut, generated, '--generate-key') : {};
      return { ...record, kid: keys[keys.length - 1]?.kid, ...files, ...(createdTenant ? { tenant: createdTenant } : {}) };
    },

    async addClientKey(input: { client: Maybe; publicKeyFile: Maybe; kid: Maybe; overlapDays: Maybe }) {
      // The command line first (exit 2), then the key file (a refusal, exit 1).
      const id = need(input.client, '--client');
      const keyFile = need(input.publicKeyFile, '--public-key');
      if (input.overlapDays !== undefined && !/^\d+$/.test(input.overlapDays)) throw usageError('--overlap-days must be a whole number', '--overlap-days');
      const body: Record<string, unknown> = { public_key: readKey(keyFile) };
      if (input.kid) body.kid = input.kid;
      if (input.overlapDays !== undefined) body.overlap_days = Number(input.overlapDays);
      return (await run('api-clients.rotate-key', { id, body })).body;
    },

    /** Adds a signing key to the key file; running servers publish it within a minute. */
    async rotateSigningKey() {
      if (config.signingKeysFile) throw validationError([{ field: 'SIGNING_KEYS_FILE', message: 'keys supplied by the operator are rotated at their source' }]);
      const now = Math.floor(systemClock.now() / 1000);
      const kid = await keys.rotate(now);
      const signsFrom = new Date((now + config.signingKeyPublishDelaySeconds) * 1000).toISOString();
      await runUnitOfWork(database, { now: () => now * 1000 }, await contextIn(undefined), (unit) =>
        unit.audit({ category: 'security', action: 'signing_key_rotated', resource: 'signing-keys', recordId: kid, tenantId: null, oldValues: null, newValues: { kid, signs_from: signsFrom } }),
      );
      return { kid, signs_from: signsFrom, jwks: keys.publicJwks().keys.map((k) => k.kid) };
    },

    /** Runs the audit retention purge now (AUDIT_RETENTION_* settings). */
    purgeAudit() {
      return purgeExpiredAudit(database, retentionFromConfig(config), systemClock.now());
    },

    /**
     * Applies every retention policy now; `dryRun` only counts. With `all`, one whole run of
     * the background retention job instead (every purge and sweep, then the policies), for
     * deployments that run it from a scheduler with `AUDIT_PURGE_INTERVAL_MINUTES=0`.
     */
    async runRetention(dryRun: boolean, all = false) {
      if (!all) return { dry_run: dryRun, policies: await applyRetentionPolicies(database, systemClock, { dryRun }) };
      if (dryRun) throw usageError('--dry-run counts the retention policies only; it cannot be combined with --all', '--dry-run');
      const report = await runRetention(database, retentionSettingsFromConfig(config), systemClock, log);
      // The rows by kind, as `retention_rows_total` counts them; the audit cutoffs as `audit purge` prints them.
      return { all: true, rows: retentionRowCounts(report), audit_cutoffs: report.audit.cutoffs, policies: report.policies };
    },
  };
}

export type OperatorServices = Awaited<ReturnType<typeof buildOperatorServices>>;
