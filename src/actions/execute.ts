import { notNow } from '../db/direct-read.js';
import { ApiError } from '../http/errors.js';
import { hasCapability } from '../security/principal.js';
import type { ActionDef, ActionInput, ActionResult, ActionServices } from './action.js';

/** The capability check every entry point repeats, so none can run an action its principal may not. */
function checkCapability(action: ActionDef, input: ActionInput): void {
  if (action.authentication === 'client' && !hasCapability(input.context.principal, action.capability)) {
    throw new ApiError('insufficient_scope', `This operation needs the capability ${action.capability}`);
  }
}

/**
 * Runs an action for a caller, the same way for HTTP (after the security pipeline) and the
 * CLI (as the operator): the capability is checked again here, so no entry point can run
 * an action its principal may not.
 */
export async function executeAction(action: ActionDef, input: ActionInput, services: ActionServices): Promise<ActionResult> {
  checkCapability(action, input);
  return action.run(input, services);
}

/**
 * {@link executeAction} with the same capability check, answered without a promise when the
 * action can (`runNow`), otherwise its promise: the HTTP handler sends either.
 */
export function executeActionNow(action: ActionDef, input: ActionInput, services: ActionServices): ActionResult | Promise<ActionResult> {
  checkCapability(action, input);
  if (action.runNow) {
    const now = action.runNow(input, services);
    if (now !== notNow) return now;
  }
  return action.run(input, services);
}
