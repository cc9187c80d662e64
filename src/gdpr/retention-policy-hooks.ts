import { policyProblem } from './retention-policies.js';
import { validationError } from '../http/errors.js';
import type { ResourceHooks } from '../services/resource-hooks.js';

function check(category: unknown, action: unknown): void {
  const problem = policyProblem(String(category), String(action ?? 'delete'));
  if (problem) throw validationError([{ field: 'category', message: problem }]);
}

/** A retention policy names something the retention job can apply it to. */
export const retentionPolicyHooks: ResourceHooks = {
  async beforeCreate(_hook, draft) {
    check(draft.values.category, draft.values.action);
    return draft;
  },
  async beforeUpdate(_hook, merged) {
    check(merged.category, merged.action);
  },
};
