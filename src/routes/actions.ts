import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { compileInputs } from '../actions/input-schemas.js';
import { actionKey } from '../actions/index.js';
import type { ActionDef, ActionInput, ActionResult } from '../actions/index.js';
import { executeAction } from '../handlers/execute.js';
import { handlerOf } from '../handlers/index.js';
import type { ActionServices, Handler } from '../handlers/index.js';
import { hideFields } from '../derive/field-access.js';
import type { FieldReader } from '../derive/field-access.js';
import type { AnswerRecord, IdempotencyKeys } from '../http/idempotency.js';
import { withCommitHook } from '../data/commit-hooks.js';
import type { InsertedRecord } from '../data/commit-hooks.js';
import { ApiError } from '../http/errors.js';
import { findResource } from '../registry/index.js';
import { installJsonBodies } from '../http/json-bodies.js';
import type { QueryString } from '../query/list-query.js';
import { nobody } from '../core/principal.js';
import { requestContext } from './request-context.js';

/** The input of an action from the request that passed the security pipeline (public actions: nobody yet). */
function actionInput(request: FastifyRequest, isPublic: boolean): ActionInput {
  const ifMatch = request.headers['if-match'];
  return {
    context: isPublic ? { principal: nobody, clientIp: request.ip ?? null, requestId: String(request.id) } : requestContext(request),
    params: request.params as Record<string, string>,
    query: request.query as QueryString,
    body: request.body,
    ifMatch: Array.isArray(ifMatch) ? ifMatch.join(', ') : ifMatch,
    url: request.url,
    // Always present (undefined without a raw body): one object shape for every request.
    rawBody: request.rawBody,
    headers: request.headers,
    ip: request.ip,
  };
}

function send(reply: FastifyReply, result: ActionResult): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  if (result.stream) return reply.send(result.stream);
  return reply.send(result.body);
}

/**
 * Runs a POST with an `Idempotency-Key` at most once per key: the first answer is stored
 * and replayed to repeats (scoped by principal, acting tenant and URL).
 */
/**
 * The route a request ran, as one spelling: the action's path with its decoded parameters,
 * so `/v1/products/` and `/v1/products`, or an id written with percent-escapes, share a key.
 */
function routeOf(action: ActionDef, params: Readonly<Record<string, string>>): string {
  return action.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

async function runIdempotent(action: ActionDef, handler: Handler, request: FastifyRequest, reply: FastifyReply, services: ActionServices, keys: IdempotencyKeys, key: string): Promise<FastifyReply> {
  const input = actionInput(request, action.authentication === 'public');
  const { principal } = input.context;
  const scope = `${principal.actorType}:${principal.actorId}@${principal.scope.nodeId ?? 'system'} ${request.method} ${routeOf(action, input.params)}`;
  const claim = await keys.claim(scope, key, request.body);
  if (claim.kind === 'replay') return send(reply.header('idempotency-replayed', 'true'), { ...claim.answer, body: asReadBy(action, principal, claim.answer.body) });
  if (claim.kind === 'committed') return send(reply.header('idempotency-replayed', 'true'), await committedAnswer(action, input, services, claim.record));
  // The key's mark commits in the action's own transaction: the change runs at most once,
  // even if the process dies between its commit and storing the answer.
  const marked: ActionInput = {
    ...input,
    context: withCommitHook(input.context, (trx, inserted) => claim.committing(trx, answerRecord(action, input.params, undefined, inserted))),
  };
  let result: ActionResult;
  try {
    result = await executeAction(action, marked, services, handler);
  } catch (error) {
    // Nothing changed: the key is free for a corrected retry.
    await claim.release().catch((releaseError: unknown) => request.log.error({ err: releaseError }, 'idempotency key not released'));
    throw error;
  }
  if (result.stream || result.status >= 300) await claim.release();
  else await claim.complete({ status: result.status, headers: result.headers ?? {}, body: result.body ?? null }, answerRecord(action, input.params, result.body));
  return send(reply, result);
}

/**
 * The record an answer is about: the one it shows (a create), else the action's own record
 * its transaction inserted (an order, not its booking), else the one the route names.
 */
function answerRecord(action: ActionDef, params: Readonly<Record<string, string>>, body: unknown, inserted: readonly InsertedRecord[] = []): AnswerRecord | undefined {
  const recordId = recordIdOf(body) ?? inserted.find((record) => record.resource === action.resource)?.id ?? params.id;
  return recordId === undefined ? undefined : { resource: action.resource, recordId };
}

/**
 * The answer to a repeat whose first request's change committed without its answer being
 * stored: the record as it reads now (201 with its location for a create), or a 409 telling
 * the caller to look the result up when the change named no record.
 */
async function committedAnswer(action: ActionDef, input: ActionInput, services: ActionServices, record: AnswerRecord | undefined): Promise<ActionResult> {
  const resource = record && findResource(record.resource);
  if (!record || !resource) throw new ApiError('idempotency_key_in_use', 'The first request with this Idempotency-Key took effect, but its answer was lost: read the result instead of repeating it');
  const { record: current, etag } = await services.resources.read(input.context, resource, record.recordId);
  const created = action.name === 'create';
  const headers: Record<string, string> = { etag, ...(created ? { location: `${services.origin}/v1/${resource.name}/${record.recordId}` } : {}) };
  return { status: created ? 201 : 200, headers, body: current };
}

function recordIdOf(body: unknown): string | undefined {
  const id = body !== null && typeof body === 'object' ? (body as { _id?: unknown })._id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A replayed record as the repeat's caller may read it: the first answer showed the fields
 * its token could read, and a repeat with a narrower token must not see more than a read would.
 */
function asReadBy(action: ActionDef, reader: FieldReader, body: unknown): unknown {
  const resource = findResource(action.resource);
  if (!resource || recordIdOf(body) === undefined) return body;
  return hideFields(resource, reader, { ...(body as Record<string, unknown>) });
}

/**
 * The Fastify route of an action: its declarations become route config, its schemas compiled
 * serialisers; its handler is looked up once, here.
 */
export function actionRoute(action: ActionDef, services: ActionServices, keys?: IdempotencyKeys, handler: Handler = handlerOf(action)): RouteOptions {
  // At start-up, like the response serialisers: a schema Ajv refuses fails the boot, not a request.
  compileInputs(action);
  const idempotent = keys !== undefined && action.method === 'POST' && action.authentication === 'client';
  const isPublic = action.authentication === 'public';
  return {
    method: action.method,
    url: action.path,
    config: {
      ...(action.authentication === 'public' ? { public: true } : action.authentication === 'user' ? { anyUser: true } : { capability: action.capability }),
      rateLimitGroup: action.rateLimitGroup,
      stepUp: action.stepUp,
      action: actionKey(action),
    },
    ...(action.schemas.response ? { schema: { response: action.schemas.response } } : {}),
    handler: async (request, reply) => {
      const key = request.headers['idempotency-key'];
      if (idempotent && key !== undefined) return runIdempotent(action, handler, request, reply, services, keys, String(key));
      return send(reply, await executeAction(action, actionInput(request, isPublic), services, handler));
    },
  };
}

/** Registers every declared action as a route (JSON bodies only in this scope); POSTs honour `Idempotency-Key` when `keys` is given. */
export function actionRoutes(actions: readonly ActionDef[], services: ActionServices, keys?: IdempotencyKeys) {
  return async function register(app: FastifyInstance): Promise<void> {
    installJsonBodies(app);
    for (const action of actions) app.route(actionRoute(action, services, keys));
  };
}
