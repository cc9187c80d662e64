import type { ResourceHooks } from '../resource-hooks.js';
import { assertInitialStatus } from './end-user-status.js';
import { tenantCurrencyHooks } from './tenant-currency.js';

/**
 * A guest's order starts in its initial status: it becomes `confirmed` through a verified
 * payment event, never by the guest's own say. Otherwise as every amount: the tenant's currency.
 */
export const orderHooks: ResourceHooks = {
  ...tenantCurrencyHooks,
  async beforeCreate(hook, draft) {
    assertInitialStatus(hook, draft.values);
    return tenantCurrencyHooks.beforeCreate ? tenantCurrencyHooks.beforeCreate(hook, draft) : draft;
  },
};
