import type { ActionDef, ActionInput, ActionResult } from '../actions/action.js';
import { checkInput } from '../actions/input-schemas.js';
import { hasCapability } from '../core/principal.js';
import { ApiError, validationError } from '../http/errors.js';
import { checkControlledTarget, controlledTarget } from './controlled-target.js';
import type { ActionServices, Handler } from './handler.js';
import { handlerOf } from './index.js';

/**
 * The checks every entry point repeats, in the pipeline's order: the capability, so none
 * can run an action its principal may not; then the input against the action's schemas.
 */
function checkCall(action: ActionDef, input: ActionInput): void {
  if (action.authentication === 'client' && !hasCapability(input.context.principal, action.capability)) {
    throw new ApiError('insufficient_scope', `This operation needs the capability ${action.capability}`, { missingCapabilities: [action.capability] });
  }
  // An empty JSON body reaches an action as no body (`http/json-bodies.ts`); one that needs a body says it is empty.
  if (action.schemas.body && input.body === undefined && input.rawBody === '') throw validationError([{ field: 'body', message: 'is empty' }]);
  checkInput(action, input);
}

/**
 * Runs an action for a caller, the same way for HTTP (after the security pipeline) and the
 * CLI (as the operator): the capability is checked again here, so no entry point can run
 * an action its principal may not, and the input is validated against the declared schemas.
 * A write that takes control of a user or an API client is bounded by the grant ceiling
 * here and in its unit of work (`controlled-target.ts`). Then its handler runs (routes look
 * it up once, at start-up).
 */
export async function executeAction(action: ActionDef, input: ActionInput, services: ActionServices, handler: Handler = handlerOf(action)): Promise<ActionResult> {
  checkCall(action, input);
  const target = controlledTarget(action, input.params);
  if (target !== undefined) {
    await checkControlledTarget(action, target, input.context, services);
    return await handler({ ...input, context: { ...input.context, target } }, services);
  }
  // Awaited, not returned: resolving an async function with a promise takes extra microtask turns.
  return await handler(input, services);
}
