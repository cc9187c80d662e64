import type { ResourceName } from '../registry/types.js';
import type { ResourceHooks } from '../services/resource-hooks.js';
import { bookingHooks } from '../booking/booking-hooks.js';
import { auditValueHooks } from '../services/hooks/audit-values.js';
import { legalHoldHooks } from '../services/hooks/legal-holds.js';
import { retentionPolicyHooks } from '../gdpr/retention-policy-hooks.js';
import { productRateHooks } from '../selling/rate-hooks.js';
import { productPriceHooks, serviceChargePriceHooks } from '../selling/price-hooks.js';
import { tenantHooks } from '../services/hooks/tenants.js';
import { userHooks } from '../gdpr/user-hooks.js';

/** Resource-specific behaviour, keyed by resource name. */
export function resourceHooks(extra: Partial<Record<ResourceName, ResourceHooks>> = {}): Partial<Record<ResourceName, ResourceHooks>> {
  return {
    tenants: tenantHooks,
    bookings: bookingHooks,
    products: productPriceHooks,
    'product-rates': productRateHooks,
    'service-charges': serviceChargePriceHooks,
    'legal-holds': legalHoldHooks,
    users: userHooks,
    'audit-logs': auditValueHooks,
    'retention-policies': retentionPolicyHooks,
    ...extra,
  };
}
