import type { RouteOptions } from 'fastify';
import { isCapability } from '../derive/capabilities.js';

/**
 * Deny by default at registration: a route must declare the capability it needs or say it
 * is public, or the service refuses to start (DESIGN.md rule 2).
 */
export function guardRoute(route: RouteOptions): void {
  const config = route.config ?? {};
  const name = `${String(route.method)} ${route.url}`;
  if (config.public === true) {
    if (config.capability) throw new Error(`route ${name} is public and also declares a capability`);
    return;
  }
  if (typeof config.capability !== 'string') {
    throw new Error(`route ${name} declares neither { capability } nor { public: true }`);
  }
  if (!isCapability(config.capability)) throw new Error(`route ${name} declares unknown capability "${config.capability}"`);
}
