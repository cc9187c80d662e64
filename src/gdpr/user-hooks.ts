import { ApiError } from '../http/errors.js';
import { checkRoleGrant } from '../services/grant-ceiling.js';
import type { ResourceHooks } from '../services/resource-hooks.js';

/**
 * Users: the security pipeline caches each user (role, status) for their tokens, and an
 * erased user stays disabled (docs/gdpr.md "Erasure": "An erased user stays disabled").
 * Turning one active again would show an account that can never sign in (the directory
 * treats every erased user as inactive) and invite re-filling it with someone's data.
 * A role is a capability set, so the grant ceiling applies: a caller gives only a role it
 * holds every capability of; that it changes or deletes only a user whose role it could
 * give (staff manage guests and staff, never admins) is checked for every write on a user
 * by the executor and the unit of work (`src/handlers/controlled-target.ts`).
 */
export const userHooks: ResourceHooks = {
  invalidates: 'user',
  updateConflicts: ['invalid_transition'],

  async beforeCreate(hook, draft) {
    checkRoleGrant(hook.unit.principal, draft.values.role);
    return draft;
  },

  async beforeUpdate(hook, merged, changes, previous) {
    if (changes.role !== undefined) checkRoleGrant(hook.unit.principal, merged.role);
    const erased = previous.erased_at !== null && previous.erased_at !== undefined;
    if (!erased || changes.status === undefined || merged.status === previous.status) return;
    throw new ApiError('invalid_transition', `An erased user stays ${String(previous.status)}`, { extensions: { from: previous.status, to: merged.status, allowed: [] } });
  },
};
