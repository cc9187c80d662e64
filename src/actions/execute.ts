import { notNow } from '../db/direct-read.js';
import { ApiError } from '../http/errors.js';
import { hasCapability } from '../core/principal.js';
import type { ActionDef, ActionInput, ActionResult, ActionServices } from './action.js';
import { checkInput } from './input-schemas.js';

/**
 * The checks every entry point repeats, in the pipeline's order: the capability, so none
 * can run an action its principal may not; then the input against the action's schemas.
 */
function checkCall(action: ActionDef, input: ActionInput): void {
  if (action.authentication === 'client' && !hasCapability(input.context.principal, action.capability)) {
    throw new ApiError('insufficient_scope', `This operation needs the capability ${action.capability}`);
  }
  checkInput(action, input);
}

/**
 * Runs an action for a caller, the same way for HTTP (after the security pipeline) and the
 * CLI (as the operator): the capability is checked again here, so no entry point can run
 * an action its principal may not, and the input is validated against the declared schemas.
 */
export async function executeAction(action: ActionDef, input: ActionInput, services: ActionServices): Promise<ActionResult> {
  checkCall(action, input);
  return action.run(input, services);
}

/**
 * {@link executeAction} with the same checks, answered without a promise when the
 * action can (`runNow`), otherwise its promise: the HTTP handler sends either.
 */
export function executeActionNow(action: ActionDef, input: ActionInput, services: ActionServices): ActionResult | Promise<ActionResult> {
  checkCall(action, input);
  if (action.runNow) {
    const now = action.runNow(input, services);
    if (now !== notNow) return now;
  }
  return action.run(input, services);
}
