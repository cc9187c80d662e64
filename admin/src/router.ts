import { signal } from './signal.js';

/** The console's pages, addressed by the URL fragment (`#/settings/api-clients`). */
export type Route = 'settings' | 'api-clients' | 'webhooks' | 'products' | 'orders' | 'users' | 'audit-log' | 'security';

const paths: Record<Route, string> = {
  settings: '#/settings',
  'api-clients': '#/settings/api-clients',
  webhooks: '#/settings/webhooks',
  products: '#/products',
  orders: '#/orders',
  users: '#/users',
  'audit-log': '#/audit-log',
  security: '#/security',
};

/** Pages that open one of their records from the fragment: `#/orders/{id}`, `#/products/{id}?booking={id}`. */
const withRecords: readonly Route[] = ['products', 'orders'];

/** The record a page address names, and the address's query (`?booking=…`). */
export interface Target {
  readonly id: string | undefined;
  readonly query: URLSearchParams;
}

function parse(hash: string): { route: Route; target: Target } {
  const [path = '', query = ''] = hash.split('?', 2);
  const none: Target = { id: undefined, query: new URLSearchParams(query) };
  const exact = (Object.keys(paths) as Route[]).find((route) => paths[route] === path);
  if (exact) return { route: exact, target: none };
  for (const route of withRecords) {
    const rest = path.startsWith(`${paths[route]}/`) ? path.slice(paths[route].length + 1) : '';
    if (rest && !rest.includes('/')) {
      try {
        return { route, target: { ...none, id: decodeURIComponent(rest) } };
      } catch {
        return { route, target: none }; // a malformed escape: the page's list
      }
    }
  }
  return { route: 'settings', target: none };
}

const initial = parse(location.hash);
export const route = signal<Route>(initial.route);
/** The record the address names on the current page (a product, an order), if any. */
export const target = signal<Target>(initial.target);
addEventListener('hashchange', () => {
  const next = parse(location.hash);
  target.set(next.target);
  route.set(next.route);
});

/** A page's address; with `id`, the page opens that record (products and orders), with `query` appended. */
export function href(to: Route, id?: string, query?: Readonly<Record<string, string>>): string {
  const path = id === undefined ? paths[to] : `${paths[to]}/${encodeURIComponent(id)}`;
  const search = query ? new URLSearchParams(query).toString() : '';
  return search ? `${path}?${search}` : path;
}

/** Pages under Settings (the navigation marks Settings as current on them). */
export const settingsPages: readonly Route[] = ['settings', 'api-clients', 'webhooks'];
