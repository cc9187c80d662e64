import type { Readable } from 'node:stream';
import type { Operation, Schema } from '../derive/openapi/types.js';
import type { RateLimitGroup } from './rate-limit-group.js';
import type { QueryString } from '../query/list-query.js';
import type { ResourceName } from '../registry/types.js';
import type { UnknownMembers } from './input-errors.js';
import type { RequestContext } from '../core/request-context.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * How a caller of the action proves who it is: an access token (of an API client or an
 * end user; the security pipeline checks the capability), any signed-in end user's token
 * without a capability (their own sign-in settings), or nothing the pipeline checks (the
 * action authenticates itself: a one-time code, a signature).
 */
export type Authentication = 'client' | 'user' | 'public';

/** One call of an action, whether it came over HTTP or from the CLI: what its handler gets. */
export interface ActionInput {
  readonly context: RequestContext;
  /** Path parameters (`id`). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: QueryString;
  readonly body: unknown;
  /** `If-Match`, several values joined. */
  readonly ifMatch: string | undefined;
  /** The request path and query as received (pagination links keep the caller's parameters). */
  readonly url: string;
  /** The body's exact text (signature checks), request headers and source address (after TRUST_PROXY); HTTP only. */
  readonly rawBody?: string | undefined;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  readonly ip?: string;
}

/** What an action's handler answers: a status, headers, and a JSON value or a stream. */
export interface ActionResult {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** A streamed body (exports); `body` is then unset. */
  readonly stream?: Readable;
}

/** The `query` of an action whose handler parses its query itself (the list language, an OAuth provider's answer). */
export const queryParsedByHandler = 'parsed-by-handler';

/**
 * JSON Schemas of an action's surface. `params`, `query` and `body` are compiled once and
 * enforced by the executor (`input-schemas.ts`) for HTTP and the CLI alike; the OpenAPI
 * operation prints these very objects. Responses are compiled into serialisers.
 */
export interface ActionSchemas {
  /** Path parameters, an object schema. */
  readonly params?: Schema;
  /**
   * The query string, an object schema of its parameters (values are strings, or arrays when
   * repeated). Deny by default: an action that declares none takes no parameter, and each
   * one sent is refused. {@link queryParsedByHandler} opts out, for a handler that parses the
   * query itself and refuses what it does not know (the list language).
   */
  readonly query?: Schema | typeof queryParsedByHandler;
  /** The JSON body. */
  readonly body?: Schema;
  /** How members a closed `body` schema leaves out are refused; by default "is not accepted here" (query parameters: "is not a parameter of this operation"). */
  readonly unknownMembers?: UnknownMembers;
  /** Response body schema by status, self-contained (no `$ref`), for the JSON answers. */
  readonly response?: Readonly<Record<number, Readonly<Record<string, unknown>>>>;
}

/**
 * An operation of the service, declared once as data: routes, capabilities, rate-limit
 * groups, OpenAPI, CLI commands and posture flags are all derived from the list of actions
 * (`src/actions/index.ts`). What it does is its handler, under the same key in
 * `src/handlers/` (above the domains it calls). Adding a sub-operation is adding one of
 * these and its handler.
 */
export interface ActionDef {
  readonly resource: ResourceName;
  /** `list`, `read`, `create`, `update`, `delete`, `export`, or a sub-operation (`rotate-key`). */
  readonly name: string;
  readonly method: HttpMethod;
  /** Fastify path syntax: `/v1/api-clients/:id/keys`. */
  readonly path: string;
  /** `<resource>:<name>` unless stated: what the caller's token must grant. */
  readonly capability: string;
  readonly rateLimitGroup: RateLimitGroup;
  readonly authentication: Authentication;
  /** Needs a user's second factor (RFC 9470 step-up) when a user, not a client, calls it. */
  readonly stepUp: boolean;
  /** The OpenAPI operation describing it (parameters, bodies, responses). */
  readonly openapi: Operation;
  readonly schemas: ActionSchemas;
}

/** The `<resource>.<name>` key of an action (CLI and logs). */
export function actionKey(action: Pick<ActionDef, 'resource' | 'name'>): string {
  return `${action.resource}.${action.name}`;
}
