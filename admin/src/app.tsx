import { AuditLog } from './pages/audit-log.js';
import { ApiClients } from './pages/api-clients.js';
import { Orders } from './pages/orders.js';
import { Products } from './pages/products.js';
import { Security } from './pages/security.js';
import { SignIn } from './pages/sign-in.js';
import { Users } from './pages/users.js';
import { Webhooks } from './pages/webhooks.js';
import { href, route, settingsPages } from './router.js';
import type { Route } from './router.js';
import { session, signOut } from './session.js';
import { useSignal } from './signal.js';

function NavLink(props: { to: Route; current: boolean; label: string }) {
  return (
    <a href={href(props.to)} aria-current={props.current ? 'page' : undefined}>
      {props.label}
    </a>
  );
}

function Settings() {
  return (
    <>
      <h1>Settings</h1>
      {/* What each section holds; the links are the Settings navigation's only, so each
          name (docs/console.md "Accessibility and layout": link "API Clients") matches exactly one link on the page. */}
      <p>Choose a section in the Settings navigation above.</p>
      <ul class="cards">
        <li>
          <h2>API Clients</h2>
          <p>Machine-to-machine clients, their capabilities and keys.</p>
        </li>
        <li>
          <h2>Webhooks</h2>
          <p>Where this tenant's events are delivered.</p>
        </li>
      </ul>
    </>
  );
}

const pages: Record<Route, () => preact.JSX.Element> = {
  settings: Settings,
  'api-clients': ApiClients,
  webhooks: Webhooks,
  products: Products,
  orders: Orders,
  users: Users,
  'audit-log': AuditLog,
  security: Security,
};

/** The console: sign-in without a session; otherwise the navigation and the current page. */
export function App() {
  const current = useSignal(session);
  const at = useSignal(route);
  if (!current) return <SignIn />;
  const Page = pages[at];
  const inSettings = settingsPages.includes(at);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span class="brand">Booking service</span>
        <nav aria-label="Main">
          <NavLink to="settings" current={inSettings} label="Settings" />
          <NavLink to="products" current={at === 'products'} label="Products" />
          <NavLink to="orders" current={at === 'orders'} label="Orders" />
          <NavLink to="users" current={at === 'users'} label="Users" />
          <NavLink to="audit-log" current={at === 'audit-log'} label="Audit log" />
          <NavLink to="security" current={at === 'security'} label="Security" />
        </nav>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      {inSettings && (
        <nav aria-label="Settings" class="subnav">
          <NavLink to="api-clients" current={at === 'api-clients'} label="API Clients" />
          <NavLink to="webhooks" current={at === 'webhooks'} label="Webhooks" />
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        <Page />
      </main>
    </>
  );
}
