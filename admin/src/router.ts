import { signal } from './signal.js';

/** The console's pages, addressed by the URL fragment (`#/settings/api-clients`). */
export type Route = 'settings' | 'api-clients' | 'webhooks' | 'products' | 'users' | 'audit-log' | 'security';

const paths: Record<Route, string> = {
  settings: '#/settings',
  'api-clients': '#/settings/api-clients',
  webhooks: '#/settings/webhooks',
  products: '#/products',
  users: '#/users',
  'audit-log': '#/audit-log',
  security: '#/security',
};

function current(): Route {
  const found = (Object.keys(paths) as Route[]).find((route) => paths[route] === location.hash);
  return found ?? 'settings';
}

export const route = signal<Route>(current());
addEventListener('hashchange', () => route.set(current()));

export function href(to: Route): string {
  return paths[to];
}

/** Pages under Settings (the navigation marks Settings as current on them). */
export const settingsPages: readonly Route[] = ['settings', 'api-clients', 'webhooks'];
