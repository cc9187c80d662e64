import type { Principal } from './principal.js';

/** What the service layer knows about the request it is serving. */
export interface RequestContext {
  readonly principal: Principal;
  /** Source address after the trusted-proxy rule. */
  readonly clientIp: string | null;
  readonly requestId: string | null;
}
