import type { Principal } from './principal.js';

/**
 * The record an action changes by its path (`PATCH /v1/users/{id}`, `POST /v1/api-clients/{id}/keys`)
 * when changing it is control over it (the grant ceiling): `check` throws unless the
 * principal may manage that record as it is now. Set by the executor; the unit of work runs
 * it again on the locked row it writes, so a concurrent change of the record cannot slip by.
 */
export interface ControlledTarget {
  readonly resource: string;
  readonly id: string;
  readonly check: (principal: Principal, record: Readonly<Record<string, unknown>>) => void;
}

/** What the service layer knows about the request it is serving. */
export interface RequestContext {
  readonly principal: Principal;
  /** Source address after the trusted-proxy rule. */
  readonly clientIp: string | null;
  readonly requestId: string | null;
  /** The record this action takes control of, if any (see {@link ControlledTarget}). */
  readonly target?: ControlledTarget;
}
