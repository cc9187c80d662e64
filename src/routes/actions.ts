import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { executeAction } from '../actions/execute.js';
import type { ActionDef, ActionInput, ActionResult, ActionServices } from '../actions/index.js';
import { installJsonBodies } from '../http/json-bodies.js';
import type { QueryString } from '../query/list-query.js';
import { requestContext } from './request-context.js';

/** The input of an action from the request that passed the security pipeline. */
function actionInput(request: FastifyRequest): ActionInput {
  const ifMatch = request.headers['if-match'];
  return {
    context: requestContext(request),
    params: request.params as Record<string, string>,
    query: request.query as QueryString,
    body: request.body,
    ifMatch: Array.isArray(ifMatch) ? ifMatch.join(', ') : ifMatch,
    url: request.url,
  };
}

function send(reply: FastifyReply, result: ActionResult): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  if (result.stream) return reply.send(result.stream);
  return reply.send(result.body);
}

/** The Fastify route of an action: its declarations become route config, its schemas compiled serialisers. */
export function actionRoute(action: ActionDef, services: ActionServices): RouteOptions {
  return {
    method: action.method,
    url: action.path,
    config: {
      ...(action.authentication === 'public' ? { public: true } : { capability: action.capability }),
      rateLimitGroup: action.rateLimitGroup,
      stepUp: action.stepUp,
    },
    ...(action.schemas.response ? { schema: { response: action.schemas.response } } : {}),
    handler: async (request, reply) => send(reply, await executeAction(action, actionInput(request), services)),
  };
}

/** Registers every declared action as a route (JSON bodies only in this scope). */
export function actionRoutes(actions: readonly ActionDef[], services: ActionServices) {
  return async function register(app: FastifyInstance): Promise<void> {
    installJsonBodies(app);
    for (const action of actions) app.route(actionRoute(action, services));
  };
}
