/**
 * Who is calling and which part of the tenant hierarchy they act in. Every service call
 * takes one; data-layer scoping is derived from `scope`, never from request input.
 */

export type Level = 'system' | 'partner' | 'parent_tenant' | 'tenant';

/** Rank of each level; a child node's rank is strictly greater than its parent's. */
export const levelRank: Readonly<Record<Level, number>> = { system: 0, partner: 1, parent_tenant: 2, tenant: 3 };

/** The tenant node a principal acts in. */
export interface TenantScope {
  /** Node id; `null` for the built-in root node `system`. */
  readonly nodeId: string | null;
  readonly level: Level;
  /** Materialised path of node ids (`/`, `/p/`, `/p/pt/t/`); descendants share the prefix. */
  readonly path: string;
}

export interface Principal {
  readonly actorType: 'client' | 'user' | 'system' | 'webhook';
  readonly actorId: string;
  /** Granted capabilities (token scope). */
  readonly capabilities: ReadonlySet<string>;
  /** Node the actor belongs to. */
  readonly home: TenantScope;
  /** Node the request acts in: `home`, or the `X-Tenant-Id` target for system callers. */
  readonly scope: TenantScope;
  /** Only the CLI/job principal of {@link asSystem}: holds every capability. */
  readonly unrestricted: boolean;
  /**
   * Set for an end user whose role reaches only the user's own records (`guest`, see
   * `roleReach` in `src/actions/roles.ts`): the data layer confines every query on a
   * resource that references users to the records naming this user id.
   */
  readonly ownRecordsOf?: string;
}

/**
 * The caller of a public action before it has proven anything (a sign-in step, a signed
 * webhook): no capabilities, and a scope that reaches no tenant, so a scoped query made
 * with it finds nothing. Such actions authenticate by their own proofs.
 */
export const nobody: Principal = Object.freeze({
  actorType: 'system',
  actorId: 'anonymous',
  capabilities: new Set<string>(),
  home: Object.freeze({ nodeId: '', level: 'tenant', path: '\u0000/' }),
  scope: Object.freeze({ nodeId: '', level: 'tenant', path: '\u0000/' }),
  unrestricted: false,
});

/** The id of the built-in root node, as clients see it (`tenant_id` claim, `X-Tenant-Id`). */
export const systemNodeId = 'system';

export const systemScope: TenantScope = Object.freeze({ nodeId: null, level: 'system', path: '/' });

/**
 * The unscoped principal of the CLI and background jobs. Greppable on purpose: every
 * bypass of tenant scoping goes through this one function.
 */
export function asSystem(capabilities: Iterable<string> = []): Principal {
  return Object.freeze({
    actorType: 'system',
    actorId: 'system',
    capabilities: new Set(capabilities),
    home: systemScope,
    scope: systemScope,
    unrestricted: true,
  });
}

/** Whether the principal may use a capability. */
export function hasCapability(principal: Principal, capability: string): boolean {
  return principal.unrestricted || principal.capabilities.has(capability);
}

/** Whether `scope` may see records owned by the node at `path`. */
export function reaches(scope: TenantScope, path: string): boolean {
  return path.startsWith(scope.path);
}
