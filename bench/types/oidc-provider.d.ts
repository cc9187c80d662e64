// oidc-provider ships no type definitions; the reference server uses only its constructor
// and `listen` (oidc-provider v9 README).
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    listen(port: number, callback?: () => void): Server;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
