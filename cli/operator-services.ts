import { readFileSync } from 'node:fs';
import type { Config } from '../src/config/config.js';
import type { Database } from '../src/db/dialect.js';
import { validationError } from '../src/http/errors.js';
import { getResource } from '../src/registry/index.js';
import { asSystem } from '../src/security/principal.js';
import type { TenantScope } from '../src/security/principal.js';
import { TenantDirectory } from '../src/security/tenant-directory.js';
import { ApiClientAdmin } from '../src/services/api-client-admin.js';
import { purgeExpiredAudit, retentionFromConfig } from '../src/services/audit-retention.js';
import { runUnitOfWork } from '../src/data/unit-of-work.js';
import { systemClock } from '../src/services/clock.js';
import { apiClientHooks } from '../src/services/hooks/api-clients.js';
import { resourceHooks } from '../src/services/hooks/index.js';
import { ResourceService } from '../src/services/resource-service.js';
import { openSigningKeys } from '../src/signing-key-source.js';
import type { RequestContext } from '../src/services/request-context.js';

type Maybe = string | undefined;

function need(value: Maybe, flag: string): string {
  if (value === undefined || value === '') throw validationError([{ field: flag, message: 'is required' }]);
  return value;
}

function readKey(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw validationError([{ field: '--public-key', message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
}

/** The operator's commands, running the same services as the API as the `system` actor. */
export function buildOperatorServices(config: Config, database: Database) {
  const resources = new ResourceService(database, systemClock, resourceHooks({ 'api-clients': apiClientHooks({ overlapDays: config.keyOverlapDays, onChange: () => undefined }) }));
  const admin = new ApiClientAdmin(database, systemClock, config.keyOverlapDays);
  const tenants = new TenantDirectory(database);
  const system = asSystem();
  const contextIn = (scope: TenantScope): RequestContext => ({ principal: { ...system, scope }, clientIp: null, requestId: null });

  return {
    async createTenant(input: { name: Maybe; level: Maybe; parent: Maybe; currency: Maybe }) {
      const body: Record<string, unknown> = { name: need(input.name, '--name') };
      if (input.level) body.level = input.level;
      if (input.parent) body.parent_id = input.parent;
      if (input.currency) body.currency = input.currency;
      const { record } = await resources.create(contextIn(system.scope), getResource('tenants'), body);
      return record;
    },

    async createClient(input: { name: Maybe; tenant: Maybe; capabilities: Maybe; publicKeyFile: Maybe; kid: Maybe; ipAllow: Maybe }) {
      const tenant = need(input.tenant, '--tenant');
      const scope = await tenants.resolve(tenant);
      if (!scope) throw validationError([{ field: '--tenant', message: `no tenant node ${tenant}` }]);
      const body: Record<string, unknown> = {
        name: need(input.name, '--name'),
        capabilities: need(input.capabilities, '--capabilities').split(/[\s,]+/).filter(Boolean),
        public_key: readKey(need(input.publicKeyFile, '--public-key')),
      };
      if (input.kid) body.kid = input.kid;
      if (input.ipAllow) body.ip_allowlist = input.ipAllow.split(',').map((s) => s.trim()).filter(Boolean);
      const { record } = await resources.create(contextIn(scope), getResource('api-clients'), body);
      const keys = record.keys as { kid: string }[];
      return { ...record, kid: keys[keys.length - 1]?.kid };
    },

    /** Adds a signing key to the key file; running servers publish it within a minute. */
    async rotateSigningKey() {
      if (config.signingKeysFile) throw validationError([{ field: 'SIGNING_KEYS_FILE', message: 'keys supplied by the operator are rotated at their source' }]);
      const now = Math.floor(systemClock.now() / 1000);
      const keys = await openSigningKeys(config, now);
      const kid = await keys.rotate(now);
      await runUnitOfWork(database, { now: () => now * 1000 }, contextIn(system.scope), (unit) =>
        unit.audit({
          category: 'security', action: 'signing_key_rotated', resource: 'signing-keys', recordId: kid, tenantId: null,
          oldValues: null, newValues: { kid, signs_from: new Date((now + config.signingKeyPublishDelaySeconds) * 1000).toISOString() },
        }),
      );
      return { kid, signs_from: new Date((now + config.signingKeyPublishDelaySeconds) * 1000).toISOString(), jwks: keys.publicJwks().keys.map((k) => k.kid) };
    },

    /** Runs the audit retention purge now (AUDIT_RETENTION_* settings). */
    purgeAudit() {
      return purgeExpiredAudit(database, retentionFromConfig(config), systemClock.now());
    },

    async addClientKey(input: { client: Maybe; publicKeyFile: Maybe; kid: Maybe; overlapDays: Maybe }) {
      const body: Record<string, unknown> = { public_key: readKey(need(input.publicKeyFile, '--public-key')) };
      if (input.kid) body.kid = input.kid;
      if (input.overlapDays !== undefined) {
        if (!/^\d+$/.test(input.overlapDays)) throw validationError([{ field: '--overlap-days', message: 'must be a whole number' }]);
        body.overlap_days = Number(input.overlapDays);
      }
      return admin.addKey(contextIn(system.scope), need(input.client, '--client'), body);
    },
  };
}

export type OperatorServices = ReturnType<typeof buildOperatorServices>;
