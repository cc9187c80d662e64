import type { RouteOptions } from 'fastify';
import { isCapability } from '../actions/capabilities.js';

/**
 * Deny by default at registration: a route must declare the capability it needs or say it
 * is public, or the service refuses to start (docs/architecture.md "Rules we keep").
 */
export function guardRoute(route: RouteOptions): void {
  if (route.method === 'OPTIONS' && route.url === '*') {
    // @fastify/cors's preflight route: answered by its own hook before authentication,
    // and only registered when CORS_ORIGINS is set.
    route.config = { ...route.config, public: true };
    return;
  }
  const config = route.config ?? {};
  const name = `${String(route.method)} ${route.url}`;
  if (config.public === true) {
    if (config.capability) throw new Error(`route ${name} is public and also declares a capability`);
    return;
  }
  if (config.anyUser === true) {
    if (config.capability) throw new Error(`route ${name} is for any user and also declares a capability`);
    return;
  }
  if (typeof config.capability !== 'string') {
    throw new Error(`route ${name} declares neither { capability } nor { public: true }`);
  }
  if (!isCapability(config.capability)) throw new Error(`route ${name} declares unknown capability "${config.capability}"`);
}
