import type { Principal } from './principal.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Capability a caller needs (`<resource>:<action>`); required unless `public`. */
    capability?: string;
    /** Opt out of authentication (health, well-known, token endpoint). */
    public?: boolean;
    /** Deprecation notice for the route (adds Deprecation/Sunset headers). */
    deprecated?: { readonly since: string; readonly sunset: string; readonly link?: string };
    /** Rate-limit group, set at registration by `src/edge/rate-limit.ts`. */
    rateLimitGroup?: 'token' | 'reads' | 'writes' | 'exports' | 'public';
  }
  interface FastifyRequest {
    /** Set by the security pipeline on every protected route. */
    principal: Principal | null;
  }
}

export {};
