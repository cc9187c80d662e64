import { ApiError } from '../../http/errors.js';
import type { HookContext } from '../resource-hooks.js';

/**
 * An end user who reaches only their own records (a guest) creates a record only in its
 * initial status (the `status` field's default): any later status comes from the service
 * or from a caller who runs the business — an order is confirmed by a verified payment
 * event, a booking completed by its tenant (CONTRACT.md). API clients, staff and admins
 * still create records in any status (imports of history, orders paid elsewhere).
 */
export function assertInitialStatus(hook: HookContext, values: Readonly<Record<string, unknown>>): void {
  if (hook.unit.principal.ownRecordsOf === undefined) return;
  const initial = hook.resource.fields.status?.default;
  // The body's defaults are already applied: an omitted status is the initial one here.
  if (initial === undefined || values.status === undefined || values.status === initial) return;
  throw new ApiError('field_forbidden', `End users create ${hook.resource.name} only with status ${String(initial)}; the service sets any other status`, {
    errors: [{ field: 'status', message: `is set by the service for end users: send ${String(initial)} or leave it out` }],
  });
}
