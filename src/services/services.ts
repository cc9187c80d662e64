import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import type { ActionServices } from '../actions/index.js';
import { ApiClientAdmin } from './api-client-admin.js';
import type { Clock } from './clock.js';
import type { CountCache } from './count-cache.js';
import { apiClientHooks } from './hooks/api-clients.js';
import { resourceHooks } from './hooks/index.js';
import { tenantHooks } from './hooks/tenants.js';
import { ResourceService } from './resource-service.js';

/** Caches outside the database that a committed write must void. */
export interface CacheInvalidation {
  /** An API client changed (disabled, deleted, keys). */
  readonly client: (clientId: string) => void;
  /** A tenant node changed (deleted). */
  readonly tenant: (tenantId: string) => void;
}

const nothingCached: CacheInvalidation = { client: () => undefined, tenant: () => undefined };

/**
 * The services every action runs on, wired the same way for the HTTP app and the CLI:
 * the same hooks, the same unit of work, only the caches to void differ.
 */
export function buildServices(config: Pick<Config, 'keyOverlapDays' | 'publicUrl'>, database: Database, clock: Clock, caches: CacheInvalidation = nothingCached, counts?: CountCache): ActionServices {
  const hooks = resourceHooks({
    tenants: { ...tenantHooks, committed: caches.tenant },
    'api-clients': apiClientHooks({ overlapDays: config.keyOverlapDays, onChange: caches.client }),
  });
  return {
    resources: new ResourceService(database, clock, hooks, counts),
    apiClients: new ApiClientAdmin(database, clock, config.keyOverlapDays, caches.client),
    origin: config.publicUrl,
  };
}
