import { getResource } from '../../registry/index.js';
import type { ResourceHooks } from '../resource-hooks.js';

const fallbackCurrency = 'EUR';

/** Amounts without a currency take the owning tenant's currency (EUR at the root). */
export const tenantCurrencyHooks: ResourceHooks = {
  async beforeCreate(hook, draft) {
    if (typeof draft.values.currency === 'string') return draft;
    let currency = fallbackCurrency;
    if (draft.owner !== null) {
      const tenant = await hook.unit.asSystem().find(getResource('tenants'), draft.owner);
      if (typeof tenant?.currency === 'string') currency = tenant.currency;
    }
    return { ...draft, values: { ...draft.values, currency } };
  },
};
