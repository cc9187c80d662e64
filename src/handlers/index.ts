import { actionKey, actions } from '../actions/index.js';
import type { ActionDef } from '../actions/index.js';
import { resources } from '../registry/index.js';
import { apiClientHandlers } from './api-client-handlers.js';
import { availabilityHandlers } from './availability-handlers.js';
import { gdprHandlers } from './gdpr-handlers.js';
import type { Handler, Handlers } from './handler.js';
import { oauthHandlers } from './oauth-handlers.js';
import { orderHandlers } from './order-handlers.js';
import { calendarHandlers } from './calendar-handlers.js';
import { productRateHandlers } from './product-rate-handlers.js';
import { resourceHandlers } from './resource-handlers.js';
import { signInHandlers } from './sign-in-handlers.js';
import { webhookHandlers } from './webhook-handlers.js';

export type { ActionServices, Handler, Handlers } from './handler.js';

/**
 * The handlers by action key, one per declared action: a key twice, a declared action
 * without a handler or a handler without a declared action throws, so a missing handler
 * fails the boot (and every test) rather than a request.
 */
export function handlerTable(declared: readonly Pick<ActionDef, 'resource' | 'name'>[], modules: readonly Handlers[]): ReadonlyMap<string, Handler> {
  const table = new Map<string, Handler>();
  for (const module of modules) {
    for (const [key, handler] of Object.entries(module)) {
      if (table.has(key)) throw new Error(`two handlers for the action ${key}`);
      table.set(key, handler);
    }
  }
  const keys = new Set(declared.map(actionKey));
  for (const key of keys) if (!table.has(key)) throw new Error(`the action ${key} has no handler (src/handlers/)`);
  for (const key of table.keys()) if (!keys.has(key)) throw new Error(`the handler ${key} has no declared action (src/actions/)`);
  return table;
}

/** Every handler, checked against the declared actions at import. */
export const handlers = handlerTable(actions, [
  ...resources.map(resourceHandlers),
  orderHandlers,
  calendarHandlers,
  apiClientHandlers,
  availabilityHandlers,
  productRateHandlers,
  gdprHandlers,
  webhookHandlers,
  signInHandlers,
  oauthHandlers,
]);

/** The handler of a declared action. */
export function handlerOf(action: Pick<ActionDef, 'resource' | 'name'>): Handler {
  const handler = handlers.get(actionKey(action));
  if (!handler) throw new Error(`the action ${actionKey(action)} has no handler`);
  return handler;
}
