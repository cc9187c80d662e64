import type { ResourceName } from '../registry/types.js';
import type { ResourceHooks } from '../services/resource-hooks.js';
import { bookingHooks, productHooks } from '../booking/booking-hooks.js';
import { auditValueHooks } from '../services/hooks/audit-values.js';
import { legalHoldHooks } from '../services/hooks/legal-holds.js';
import { retentionPolicyHooks } from '../gdpr/retention-policy-hooks.js';
import { tenantCurrencyHooks } from '../services/hooks/tenant-currency.js';
import { tenantHooks } from '../services/hooks/tenants.js';
import { userHooks } from '../gdpr/user-hooks.js';

/** Resource-specific behaviour, keyed by resource name. */
export function resourceHooks(extra: Partial<Record<ResourceName, ResourceHooks>> = {}): Partial<Record<ResourceName, ResourceHooks>> {
  return {
    tenants: tenantHooks,
    bookings: bookingHooks,
    products: productHooks,
    orders: tenantCurrencyHooks,
    'service-charges': tenantCurrencyHooks,
    'legal-holds': legalHoldHooks,
    users: userHooks,
    'audit-logs': auditValueHooks,
    'retention-policies': retentionPolicyHooks,
    ...extra,
  };
}
