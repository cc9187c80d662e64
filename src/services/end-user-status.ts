import { ApiError } from '../http/errors.js';
import type { Principal } from '../core/principal.js';
import type { ResourceDef } from '../registry/types.js';

/**
 * An end user who reaches only their own records (a guest) creates a record only in its
 * initial status (the `status` field's default): any later status comes from the service
 * or from a caller who runs the business — an order is confirmed by a verified payment
 * event, a booking completed by its tenant (docs/end-users.md "Roles and what they
 * reach"). API clients, staff and admins still create records in any status (imports of
 * history, orders paid elsewhere). Checked on every create beside the field capabilities,
 * so a new resource with a `status` is covered.
 */
export function assertInitialStatus(resource: ResourceDef, principal: Principal, values: Readonly<Record<string, unknown>>): void {
  if (principal.ownRecordsOf === undefined) return;
  const initial = resource.fields.status?.default;
  // The body's defaults are already applied: an omitted status is the initial one here.
  if (initial === undefined || values.status === undefined || values.status === initial) return;
  throw new ApiError('field_forbidden', `End users create ${resource.name} only with status ${String(initial)}; the service sets any other status`, {
    errors: [{ field: 'status', message: `is set by the service for end users: send ${String(initial)} or leave it out` }],
  });
}
