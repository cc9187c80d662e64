import { resources } from '../registry/index.js';
import { actionKey } from './action.js';
import type { ActionDef } from './action.js';
import { rotateClientKey } from './api-client-actions.js';
import { availabilityActions } from './availability-actions.js';
import { eraseUserAction, exportSubjectAction, previewRetentionAction } from './gdpr-actions.js';
import { oauthActions } from './oauth-actions.js';
import { orderActions } from './order-actions.js';
import { calendarActions } from './calendar-actions.js';
import { productRateActions } from './product-rate-actions.js';
import { resourceActions } from './resource-actions.js';
import { resetTotpAction, signInActions } from './sign-in-actions.js';
import { webhookActions } from './webhook-actions.js';

export type { ActionDef, ActionInput, ActionResult } from './action.js';
export { actionKey } from './action.js';

/**
 * Every operation the service offers on its resources: the collection operations each
 * registry entry lists, and the sub-operations declared next to them. Routes, OpenAPI,
 * capabilities, rate-limit groups, CLI commands and posture flags derive from this list.
 */
export const actions: readonly ActionDef[] = Object.freeze([
  ...resources.flatMap(resourceActions),
  rotateClientKey,
  ...availabilityActions,
  ...orderActions,
  ...calendarActions,
  ...productRateActions,
  eraseUserAction,
  exportSubjectAction,
  previewRetentionAction,
  ...webhookActions,
  ...signInActions,
  resetTotpAction,
  ...oauthActions,
]);

// Invariants, checked at import: a broken declaration fails the boot and every test.
const seen = new Set<string>();
for (const action of actions) {
  const route = `${action.method} ${action.path}`;
  if (seen.has(route)) throw new Error(`two actions declare ${route}`);
  seen.add(route);
  if (seen.has(actionKey(action))) throw new Error(`two actions are named ${actionKey(action)}`);
  seen.add(actionKey(action));
  // An action needs its own `<resource>:<name>`, or shares the capability of another action
  // of its resource (the retention preview is a read: `retention-policies:read`).
  const shared = actions.some((other) => other !== action && other.resource === action.resource && other.capability === action.capability && `${other.resource}:${other.name}` === other.capability);
  if (action.authentication === 'client' && action.capability !== `${action.resource}:${action.name}` && !shared)
    throw new Error(`action ${actionKey(action)} must declare the capability ${action.resource}:${action.name} or one of its resource's other actions`);
}

/** The action named `<resource>.<name>`, if declared. */
export function findAction(key: string): ActionDef | undefined {
  return actions.find((action) => actionKey(action) === key);
}
