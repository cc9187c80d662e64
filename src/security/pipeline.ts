import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { roleCapabilities, roleReach } from '../actions/roles.js';
import type { Role } from '../actions/roles.js';
import { userEvent } from './security-events.js';
import type { SecurityEvents } from './security-events.js';
import type { AccessTokenClaims } from './access-token.js';
import type { Authenticated, Authenticator } from './authenticate.js';
import { authError } from './challenge.js';
import type { Scheme } from '../http/challenge.js';
import type { ClientDirectory, ClientState } from './client-directory.js';
import type { IpAllowlist } from '../lib/ip-allowlist.js';
import type { Principal, TenantScope } from '../core/principal.js';
import { guardRoute } from './route-guard.js';
import type { TenantDirectory } from './tenant-directory.js';
import type { UserDirectory } from './user-directory.js';

export interface SecurityDeps {
  readonly authenticator: Authenticator;
  readonly clients: ClientDirectory;
  readonly tenants: TenantDirectory;
  /** End users behind user tokens. */
  readonly users: UserDirectory;
  /** Audit trail of refused requests. */
  readonly events?: SecurityEvents;
}

/**
 * Deny by default at registration: installed before any plugin or route, so nothing can
 * be registered without declaring a capability or `public` (else start-up fails).
 */
export function installRouteGuard(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', guardRoute);
}

/** Every protected route's request is decided by {@link decideAccess}; public routes and 404s skip it. */
export function installSecurity(app: FastifyInstance, deps: SecurityDeps): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true || request.is404) {
      done();
      return;
    }
    const decided = attempt(() => decideAccess(deps, request, config));
    if (decided instanceof Promise) {
      decided.then((principal) => {
        request.principal = principal;
        done();
      }, done);
      return;
    }
    request.principal = decided;
    done();
  });
}

/** A value now, or later. */
type Maybe<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is there, when it arrives otherwise. */
function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** `run()`, a synchronous throw turned into a rejection so the hook answers both one way. */
function attempt<T>(run: () => Maybe<T>): Maybe<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The one access decision for a request to a protected route, in a fixed order:
 * authenticate (token, DPoP proof) → the active caller the token speaks for (an API client
 * or an end user) → IP allowlist (clients) → capability → step-up (users, RFC 9470) →
 * tenant scope (`X-Tenant-Id` for system-level clients). It answers the principal or throws
 * the one refusal, audited where the audit trail wants it. Every lookup answers from memory
 * when it can (a token verified before, a client, user or tenant held fresh), so the
 * common request is decided without a promise; the checks are the same either way.
 */
export function decideAccess(deps: SecurityDeps, request: FastifyRequest, config: FastifyContextConfig): Maybe<Principal> {
  // A route for any signed-in end user (`anyUser`) names no capability.
  const capability = typeof config.capability === 'string' ? config.capability : undefined;
  if (capability === undefined && config.anyUser !== true) throw new ApiError('internal_error', 'route without capability');
  return then(deps.authenticator.authenticate(request), (auth) =>
    then(activeCaller(deps, auth, capability), (caller) => {
      const { scheme } = auth;
      if (caller.allowlist !== undefined && !caller.allowlist.allows(request.ip)) {
        const refusal = new ApiError('ip_not_allowed', 'Requests for this client are not allowed from this address', { privateReason: `client ${caller.actorId} from ${request.ip}` });
        return refuse(audit(deps, request, caller, 'ip_refused', { address: request.ip }), refusal);
      }
      if (capability === undefined) return principalIn(deps, request, caller, scheme);
      if (!caller.granted.has(capability)) {
        const refusal = authError('insufficient_scope', `This operation needs the capability ${capability}`, scheme, 'insufficient_scope', { extra: { scope: capability } });
        return refuse(audit(deps, request, caller, 'capability_denied', { capability }), refusal);
      }
      if (config.stepUp === true && caller.actorType === 'user' && !(auth.claims.amr ?? []).includes('totp')) {
        const refusal = authError('mfa_required', 'This administrative operation needs a sign-in with TOTP; sign in again with your second factor', scheme, 'insufficient_user_authentication', {
          extra: { acr_values: 'urn:booking:totp' },
        });
        return refuse(audit(deps, request, caller, 'step_up_required', { capability, amr: auth.claims.amr ?? [] }), refusal);
      }
      return principalIn(deps, request, caller, scheme);
    }),
  );
}

/** Who a verified token speaks for, once known to be active. */
interface Caller {
  readonly actorType: 'client' | 'user';
  readonly actorId: string;
  /** The caller's own node (`null`: the root). */
  readonly homeId: string | null;
  /** What this request may use: the token's scope, within what the client or the user's role holds now. */
  readonly granted: ReadonlySet<string>;
  /** A client's address allowlist; users have none. */
  readonly allowlist?: IpAllowlist;
  /** A user whose role reaches only the user's own records (`roleReach`). */
  readonly ownRecordsOf?: string;
}

/** The token's client or user, which must still be active; a client token cannot call a route for users. */
function activeCaller(deps: SecurityDeps, auth: Authenticated, capability: string | undefined): Maybe<Caller> {
  const { claims, scheme } = auth;
  if (claims.actor_type === 'user') {
    return then(deps.users.lookup(claims.sub), (user) => {
      if (!user || !user.active) throw authError('invalid_token', 'The user of this token is disabled, erased or deleted', scheme, 'invalid_token', { privateReason: `user ${claims.sub} inactive` });
      const role = roleSet(user.role);
      const granted = new Set([...grantedCapabilities(claims)].filter((c) => role.has(c)));
      return { actorType: 'user', actorId: user.userId, homeId: user.tenantId, granted, ...(roleReach[user.role] === 'own' ? { ownRecordsOf: user.userId } : {}) };
    });
  }
  if (capability === undefined) throw authError('invalid_token', 'This operation is for signed-in users', scheme, 'invalid_token');
  return then(deps.clients.lookup(claims.client_id), (client) => {
    if (!client || client.disabled)
      throw authError('invalid_token', 'The client of this token is disabled or deleted', scheme, 'invalid_token', { privateReason: `client ${claims.client_id} inactive` });
    return { actorType: 'client', actorId: client.clientId, homeId: client.tenantId, granted: clientGrants(claims, client), allowlist: client.allowlist };
  });
}

/** The node the request acts in: the caller's own, or for a system-level client the one `X-Tenant-Id` names. */
function principalIn(deps: SecurityDeps, request: FastifyRequest, caller: Caller, scheme: Scheme): Maybe<Principal> {
  const target = request.headers['x-tenant-id'];
  if (target !== undefined && caller.actorType === 'user') throw new ApiError('tenant_forbidden', 'Users act in their own tenant; X-Tenant-Id is for system-level clients');
  return then(deps.tenants.lookup(caller.homeId), (home) => {
    if (!home) throw authError('invalid_token', `The tenant of this ${caller.actorType} no longer exists`, scheme, 'invalid_token');
    if (target === undefined) return principal(caller, home, home);
    if (home.level !== 'system') throw new ApiError('tenant_forbidden', 'Only system-level clients may act in another tenant with X-Tenant-Id');
    const named = typeof target === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(target) ? deps.tenants.lookup(target) : undefined;
    return then(named, (scope) => {
      if (!scope) throw new ApiError('validation_failed', 'X-Tenant-Id does not name an existing tenant node', { errors: [{ field: 'X-Tenant-Id', message: 'unknown tenant node' }] });
      return principal(caller, home, scope);
    });
  });
}

function principal(caller: Caller, home: TenantScope, scope: TenantScope): Principal {
  const base = { actorType: caller.actorType, actorId: caller.actorId, capabilities: caller.granted, home, scope, unrestricted: false };
  return Object.freeze(caller.ownRecordsOf === undefined ? base : { ...base, ownRecordsOf: caller.ownRecordsOf });
}

/** Refusals the audit trail records: a client's address and capability refusals, a user's step-up refusal. */
type AuditedRefusal = 'ip_refused' | 'capability_denied' | 'step_up_required';

function audit(deps: SecurityDeps, request: FastifyRequest, caller: Caller, name: AuditedRefusal, details: Record<string, unknown>): Promise<void> | undefined {
  const where = { method: request.method, route: request.routeOptions.url ?? null };
  const at = { clientIp: request.ip, requestId: String(request.id) };
  if (caller.actorType === 'user') {
    return name === 'step_up_required' ? deps.events?.record(userEvent(name, at, { userId: caller.actorId, tenantId: caller.homeId }, { ...details, ...where })) : undefined;
  }
  return name === 'step_up_required' ? undefined : deps.events?.record({ ...at, name, clientId: caller.actorId, tenantId: caller.homeId, details: { ...details, ...where } });
}

/** Throws `refusal` once its audit entry (if any) is written. */
async function refuse(recorded: Promise<void> | undefined, refusal: ApiError): Promise<never> {
  await recorded;
  throw refusal;
}

const grantedByClaims = new WeakMap<AccessTokenClaims, ReadonlySet<string>>();

/** The token's scope as a set, computed once per verified (and cached) claims object. */
function grantedCapabilities(claims: AccessTokenClaims): ReadonlySet<string> {
  let granted = grantedByClaims.get(claims);
  if (!granted) {
    granted = new Set(claims.scope.split(' '));
    grantedByClaims.set(claims, granted);
  }
  return granted;
}

const clientGrantsByClaims = new WeakMap<AccessTokenClaims, { readonly client: ClientState; readonly granted: ReadonlySet<string> }>();

/**
 * The token's scope within the client's capabilities as they are now: a capability taken
 * from a client stops working for the tokens it already holds as soon as its directory
 * entry is refreshed (at most 5 s, docs/operations.md), not when they expire. Computed
 * once per verified claims and directory entry.
 */
function clientGrants(claims: AccessTokenClaims, client: ClientState): ReadonlySet<string> {
  const known = clientGrantsByClaims.get(claims);
  if (known?.client === client) return known.granted;
  const current = new Set(client.capabilities);
  const granted = new Set([...grantedCapabilities(claims)].filter((capability) => current.has(capability)));
  clientGrantsByClaims.set(claims, { client, granted });
  return granted;
}

const roleSets = new Map<Role, ReadonlySet<string>>();

function roleSet(role: Role): ReadonlySet<string> {
  let set = roleSets.get(role);
  if (!set) {
    set = new Set(roleCapabilities[role]);
    roleSets.set(role, set);
  }
  return set;
}
