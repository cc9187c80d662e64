import type { RateLimitGroup } from '../actions/rate-limit-group.js';
import type { Principal } from '../core/principal.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Capability a caller needs (`<resource>:<action>`); required unless `public`. */
    capability?: string;
    /** The action a route runs (`<resource>.<name>`): names its trace span. */
    action?: string;
    /** Opt out of authentication (health, well-known, token endpoint). */
    public?: boolean;
    /** Any signed-in end user may call it, whatever the role (their own TOTP settings); no capability. */
    anyUser?: boolean;
    /** Deprecation notice for the route (adds Deprecation/Sunset headers). */
    deprecated?: { readonly since: string; readonly sunset: string; readonly link?: string };
    /** Rate-limit group: declared by actions and the token endpoint, else derived at registration (`src/edge/rate-limit.ts`). */
    rateLimitGroup?: RateLimitGroup;
    /** The action needs a user's second factor (RFC 9470 step-up) when a user calls it. */
    stepUp?: boolean;
  }
  interface FastifyRequest {
    /** Set by the security pipeline on every protected route. */
    principal: Principal | null;
    /** The JSON body as received, for signatures over the exact bytes. */
    rawBody?: string;
  }
}

export {};
