import { ApiError } from '../http/errors.js';
import { hasCapability } from '../core/principal.js';
import type { Principal } from '../core/principal.js';
import { isRole, roleCapabilities } from '../actions/roles.js';
import { getResource } from '../registry/index.js';
import type { ResourceName } from '../registry/types.js';

/** What a refused write says: the body field it concerns and the sentence before the missing capabilities. */
interface CeilingRefusal {
  readonly field: string;
  readonly message: string;
}

/**
 * The grant ceiling: a caller can neither grant nor take control of more than it holds.
 * `capabilities` are those the write would hand out (a client's capabilities, a role given
 * to a user) or put under the caller's control (an existing client or user it would change,
 * re-key or delete). Any the caller lacks → 403 `insufficient_scope` naming them, thrown
 * inside the write's unit of work, so nothing is written. System callers hold every
 * capability and are never refused.
 */
export function checkGrantCeiling(principal: Principal, capabilities: Iterable<string>, refusal: CeilingRefusal): void {
  const beyond = [...new Set(capabilities)].filter((c) => !hasCapability(principal, c));
  if (beyond.length === 0) return;
  throw new ApiError('insufficient_scope', `${refusal.message}: ${beyond.join(', ')}`, {
    errors: beyond.map((c) => ({ field: refusal.field, message: `caller lacks ${c}` })),
    missingCapabilities: beyond,
  });
}

/** Capabilities given to an API client (create, PATCH `capabilities`). */
export function checkClientGrant(principal: Principal, capabilities: readonly string[]): void {
  checkGrantCeiling(principal, capabilities, { field: 'capabilities', message: 'A client cannot be granted capabilities its creator lacks' });
}

/** An existing API client the caller would change, re-key or delete (else a new key or a lock-out hands it a stronger client). */
export function checkClientControl(principal: Principal, client: { readonly capabilities?: unknown }): void {
  const held = Array.isArray(client.capabilities) ? client.capabilities.map(String) : [];
  checkGrantCeiling(principal, held, { field: 'capabilities', message: 'A caller cannot manage a client holding capabilities it lacks' });
}

/** A role given to an end user (create, or PATCH `role`). */
export function checkRoleGrant(principal: Principal, role: unknown): void {
  checkGrantCeiling(principal, capabilitiesOfRole(role), { field: 'role', message: `A user cannot be given the role ${String(role)}, whose capabilities the caller lacks` });
}

/** An existing end user the caller would change or delete: its current role bounds who may. */
export function checkUserControl(principal: Principal, user: { readonly role?: unknown }): void {
  checkGrantCeiling(principal, capabilitiesOfRole(user.role), { field: 'role', message: `A caller cannot manage a user with the role ${String(user.role)}, whose capabilities it lacks` });
}

/**
 * Resources whose records hold capabilities: changing one by its id (`PATCH`, `DELETE`, a
 * sub-operation on `/{id}`) is control over it, bounded by these checks. The executor
 * applies them to every such action (`src/handlers/controlled-target.ts`), so a new
 * sub-operation cannot forget them.
 */
export const controlChecks: Readonly<Partial<Record<ResourceName, (principal: Principal, record: Readonly<Record<string, unknown>>) => void>>> = {
  users: checkUserControl,
  'api-clients': checkClientControl,
};

/**
 * What giving or managing a user of this role hands out. The default role (`guest`) is what
 * `users:create` and `users:update` already allow (every user is at least a guest); a role
 * above it needs its whole capability set. A stored value that is no role counts as the widest.
 */
function capabilitiesOfRole(role: unknown): readonly string[] {
  if (role === defaultRole) return [];
  return roleCapabilities[isRole(role) ? role : 'admin'];
}

const defaultRole = getResource('users').fields.role?.default;
