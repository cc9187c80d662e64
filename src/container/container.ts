import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import type { ActionServices } from '../actions/index.js';
import { ApiClientAdmin } from '../services/api-client-admin.js';
import type { Clock } from '../core/clock.js';
import type { CountCache } from '../services/count-cache.js';
import { apiClientHooks } from '../services/hooks/api-clients.js';
import { resourceHooks } from './resource-hooks.js';
import { ResourceService } from '../services/resource-service.js';
import { DataKey } from '../security/data-key.js';
import { AddressGuard } from '../webhooks/address-guard.js';
import { webhookHooks } from '../webhooks/webhook-hooks.js';

/**
 * The services every action runs on, wired the same way for the HTTP app and the CLI:
 * the same hooks, the same unit of work. Caches learn of changes from the database's
 * change feed (`Database.changes`), whoever made them.
 */
export function buildServices(config: Pick<Config, 'keyOverlapDays' | 'publicUrl' | 'dataKey' | 'dataDir' | 'webhookAllowHttp' | 'webhookAllowedNetworks'>, database: Database, clock: Clock, counts?: CountCache): ActionServices {
  const policy = { allowHttp: config.webhookAllowHttp, guard: new AddressGuard(config.webhookAllowedNetworks), dataKey: DataKey.open(config) };
  const hooks = resourceHooks({ 'api-clients': apiClientHooks({ overlapDays: config.keyOverlapDays }), webhooks: webhookHooks(policy) });
  return {
    resources: new ResourceService(database, clock, hooks, counts),
    apiClients: new ApiClientAdmin(database, clock, config.keyOverlapDays),
    origin: config.publicUrl,
  };
}
