import { ApiError } from '../http/errors.js';
import type { ResourceHooks } from '../services/resource-hooks.js';

/**
 * Users: the security pipeline caches each user (role, status) for their tokens, and an
 * erased user stays disabled (CONTRACT.md "Erasure": "the user is disabled"). Turning one
 * active again would show an account that can never sign in (the directory treats every
 * erased user as inactive) and invite re-filling it with someone's data.
 */
export const userHooks: ResourceHooks = {
  invalidates: 'user',
  updateConflicts: ['invalid_transition'],

  async beforeUpdate(_hook, merged, changes, previous) {
    const erased = previous.erased_at !== null && previous.erased_at !== undefined;
    if (!erased || changes.status === undefined || merged.status === previous.status) return;
    throw new ApiError('invalid_transition', `An erased user stays ${String(previous.status)}`, { extensions: { from: previous.status, to: merged.status, allowed: [] } });
  },
};
