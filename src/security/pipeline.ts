import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { userEvent } from './security-events.js';
import type { SecurityEvents } from './security-events.js';
import type { AccessTokenClaims } from './access-token.js';
import type { Authenticated, Authenticator } from './authenticate.js';
import { authError } from './challenge.js';
import type { ClientDirectory, ClientState } from './client-directory.js';
import type { Principal, TenantScope } from '../core/principal.js';
import { guardRoute } from './route-guard.js';
import type { TenantDirectory } from './tenant-directory.js';
import type { UserDirectory } from './user-directory.js';
import { roleCapabilities, roleReach } from '../actions/roles.js';

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

/**
 * The one place access is decided. Each request to a protected route runs, in this fixed
 * order: authenticate → IP allowlist → capability → tenant scope.
 */
export function installSecurity(app: FastifyInstance, deps: SecurityDeps): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true || request.is404) {
      done();
      return;
    }
    // A Bearer token this instance verified before, looked up once for both paths.
    const auth = deps.authenticator.knownBearer(request);
    const known = auth && knownClientPrincipal(deps, request, config, auth);
    if (known) {
      request.principal = known;
      done();
      return;
    }
    secure(deps, request, config, auth).then(() => done(), done);
  });
}

/**
 * The pipeline answered from memory alone, for the common request: a Bearer token this
 * instance verified, of a client and a home tenant the directories hold fresh, the client
 * enabled, the address allowed and the capability granted, no `X-Tenant-Id`. Every check
 * is the same as in {@link secure}; whenever one of them cannot pass from memory this
 * returns `undefined` and {@link secure} decides (and refuses, audits or loads) as always.
 */
function knownClientPrincipal(deps: SecurityDeps, request: FastifyRequest, config: FastifyContextConfig, auth: Authenticated): Principal | undefined {
  const capability = config.capability;
  if (typeof capability !== 'string' || request.headers['x-tenant-id'] !== undefined) return undefined;
  if (auth.claims.actor_type === 'user') return undefined;
  const client = deps.clients.cachedActive(auth.claims.client_id);
  if (!client || !client.allowlist.allows(request.ip)) return undefined;
  const granted = grantedCapabilities(auth.claims);
  if (!granted.has(capability)) return undefined;
  const home = deps.tenants.cached(client.tenantId);
  return home && clientPrincipal(client, granted, home, home);
}

/** The one place access is decided, in this fixed order: authenticate → IP allowlist → capability → tenant scope. */
async function secure(deps: SecurityDeps, request: FastifyRequest, config: FastifyContextConfig, known: Authenticated | undefined): Promise<void> {
  const capability = config.capability;
  if (typeof capability !== 'string' && config.anyUser !== true) throw new ApiError('internal_error', 'route without capability');
  const auth = known ?? (await deps.authenticator.authenticate(request));
  if (auth.claims.actor_type === 'user') {
    request.principal = await userPrincipal(deps, auth, request);
    return;
  }
  if (typeof capability !== 'string') throw authError('invalid_token', 'This operation is for signed-in users', auth.scheme, 'invalid_token');
  const client = await activeClient(deps.clients, auth);
  const refused = (name: 'ip_refused' | 'capability_denied', details: Record<string, unknown>) =>
    deps.events?.record({ name, clientId: client.clientId, tenantId: client.tenantId, clientIp: request.ip, requestId: String(request.id), details: { ...details, method: request.method, route: request.routeOptions.url ?? null } });
  if (!client.allowlist.allows(request.ip)) {
    await refused('ip_refused', { address: request.ip });
    throw new ApiError('ip_not_allowed', 'Requests for this client are not allowed from this address', { privateReason: `client ${client.clientId} from ${request.ip}` });
  }
  const granted = grantedCapabilities(auth.claims);
  if (!granted.has(capability)) {
    await refused('capability_denied', { capability });
    throw authError('insufficient_scope', `This operation needs the capability ${capability}`, auth.scheme, 'insufficient_scope', { extra: { scope: capability } });
  }
  request.principal = await resolvePrincipal(deps.tenants, auth, client, granted, request);
}

/**
 * An end user's request: the user must still be active; the capability must be in the
 * token's scope and still in the user's role; a route declaring `stepUp` needs `totp` in
 * the token's `amr` (RFC 9470); users act in their own tenant only.
 */
async function userPrincipal(deps: SecurityDeps, auth: Authenticated, request: FastifyRequest): Promise<Principal> {
  const config = request.routeOptions.config;
  const user = await deps.users.get(auth.claims.sub);
  if (!user || !user.active) throw authError('invalid_token', 'The user of this token is disabled, erased or deleted', auth.scheme, 'invalid_token', { privateReason: `user ${auth.claims.sub} inactive` });
  const role = new Set(roleCapabilities[user.role]);
  const granted = new Set([...grantedCapabilities(auth.claims)].filter((c) => role.has(c)));
  if (config.anyUser !== true) {
    const capability = String(config.capability);
    if (!granted.has(capability)) throw authError('insufficient_scope', `This operation needs the capability ${capability}`, auth.scheme, 'insufficient_scope', { extra: { scope: capability } });
    if (config.stepUp === true && !(auth.claims.amr ?? []).includes('totp')) {
      await deps.events?.record(userEvent('step_up_required', { clientIp: request.ip, requestId: String(request.id) }, { userId: user.userId, tenantId: user.tenantId }, { capability, method: request.method, route: request.routeOptions.url ?? null, amr: auth.claims.amr ?? [] }));
      throw authError('mfa_required', 'This administrative operation needs a sign-in with TOTP; sign in again with your second factor', auth.scheme, 'insufficient_user_authentication', { extra: { acr_values: 'urn:booking:totp' } });
    }
  }
  if (request.headers['x-tenant-id'] !== undefined) throw new ApiError('tenant_forbidden', 'Users act in their own tenant; X-Tenant-Id is for system-level clients');
  const home = await deps.tenants.resolve(user.tenantId);
  if (!home) throw authError('invalid_token', 'The tenant of this user no longer exists', auth.scheme, 'invalid_token');
  return Object.freeze({ actorType: 'user', actorId: user.userId, capabilities: granted, home, scope: home, unrestricted: false, ...(roleReach[user.role] === 'own' ? { ownRecordsOf: user.userId } : {}) });
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

async function activeClient(clients: ClientDirectory, auth: Authenticated): Promise<ClientState> {
  const client = await clients.get(auth.claims.client_id);
  if (!client || client.disabled) {
    throw authError('invalid_token', 'The client of this token is disabled or deleted', auth.scheme, 'invalid_token', { privateReason: `client ${auth.claims.client_id} inactive` });
  }
  return client;
}

/** Step 4: the node the request acts in — the client's own, or `X-Tenant-Id` for system callers. */
async function resolvePrincipal(tenants: TenantDirectory, auth: Authenticated, client: ClientState, granted: ReadonlySet<string>, request: FastifyRequest): Promise<Principal> {
  const home = await tenants.resolve(client.tenantId);
  if (!home) throw authError('invalid_token', 'The tenant of this client no longer exists', auth.scheme, 'invalid_token');
  let scope: TenantScope = home;
  const target = request.headers['x-tenant-id'];
  if (target !== undefined) {
    if (home.level !== 'system') throw new ApiError('tenant_forbidden', 'Only system-level clients may act in another tenant with X-Tenant-Id');
    const resolved = typeof target === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(target) ? await tenants.resolve(target) : undefined;
    if (!resolved) throw new ApiError('validation_failed', 'X-Tenant-Id does not name an existing tenant node', { errors: [{ field: 'X-Tenant-Id', message: 'unknown tenant node' }] });
    scope = resolved;
  }
  return clientPrincipal(client, granted, home, scope);
}

function clientPrincipal(client: ClientState, granted: ReadonlySet<string>, home: TenantScope, scope: TenantScope): Principal {
  return Object.freeze({ actorType: 'client', actorId: client.clientId, capabilities: granted, home, scope, unrestricted: false });
}
