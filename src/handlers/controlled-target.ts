import type { ActionDef, ActionInput } from '../actions/action.js';
import type { ControlledTarget, RequestContext } from '../core/request-context.js';
import { pathId } from '../http/path-id.js';
import { getResource } from '../registry/index.js';
import { controlChecks } from '../services/grant-ceiling.js';
import type { ActionServices } from './handler.js';

/**
 * The record a call takes control of: any write (not a GET) on `/{id}` of a resource whose
 * records hold capabilities (users, API clients). Derived from the action, not declared,
 * so no sub-operation can leave it out.
 */
export function controlledTarget(action: ActionDef, params: ActionInput['params']): ControlledTarget | undefined {
  const check = controlChecks[action.resource];
  const id = params.id;
  if (check === undefined || action.method === 'GET' || id === undefined) return undefined;
  // An id that cannot name a record is the handler's 404 too, answered here before any query.
  return { resource: action.resource, id: pathId(id, action.resource), check };
}

/**
 * Checks control of the target before the handler runs, so a refusal comes before any other
 * answer and also covers a call that would change nothing. A record out of reach is left to
 * the handler (404). The unit of work checks again on the row it locks and writes.
 */
export async function checkControlledTarget(action: ActionDef, target: ControlledTarget, context: RequestContext, services: ActionServices): Promise<void> {
  const record = await services.resources.stored(context.principal, getResource(action.resource), target.id);
  if (record !== undefined) target.check(context.principal, record);
}
