import { validationError } from '../../http/errors.js';
import { findResource } from '../../registry/index.js';
import type { ResourceHooks } from '../resource-hooks.js';

/**
 * A legal hold names a record the caller can see: the resource must exist in the registry
 * and the record in the caller's tenants (soft-deleted records included: their data and
 * audit trail are what a hold preserves). Another tenant's ids are refused like unknown ones.
 */
export const legalHoldHooks: ResourceHooks = {
  async beforeCreate(hook, draft) {
    const target = findResource(String(draft.values.resource));
    if (!target) throw validationError([{ field: 'resource', message: 'is not a resource name' }]);
    const found = await hook.unit.scoped(target, { includeDeleted: true }).select('_id').where('_id', '=', String(draft.values.record_id)).executeTakeFirst();
    if (!found) throw validationError([{ field: 'record_id', message: `does not name a ${target.name} record in reach` }]);
    return draft;
  },
};
