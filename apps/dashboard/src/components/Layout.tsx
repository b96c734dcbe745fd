import { NavLink, Outlet } from 'react-router';
import { clearSession } from '../auth/session.ts';
import { useWhoami } from '../auth/whoami.ts';

const NAV = [
  { to: '/experiments', label: 'Experiments' },
  { to: '/layers', label: 'Layers' },
  { to: '/holdouts', label: 'Holdouts' },
  { to: '/datasets', label: 'Datasets' },
  { to: '/prompts', label: 'Prompts' },
  { to: '/keys', label: 'Keys' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/usage', label: 'Usage' },
  { to: '/billing', label: 'Billing' },
  { to: '/audit', label: 'Audit log' },
  { to: '/feedback', label: 'Feedback' },
];

/** Shown only to platform owners: whoami's `platform_owner` decides (docs/decisions/dashboard.md#billing-and-platform-owner-pages). */
const OWNER_NAV = [
  { to: '/admin/inbox', label: 'Inbox' },
  { to: '/admin/overview', label: 'Platform' },
];

export function Layout() {
  const me = useWhoami();
  const nav = me.data?.platform_owner === true ? [...NAV, ...OWNER_NAV] : NAV;
  return (
    <div className="shell">
      <header className="top">
        <a className="brand" href="/experiments">
          Arbiter
        </a>
        <nav aria-label="Main">
          {nav.map((n) => (
            <NavLink key={n.to} to={n.to}>
              {n.label}
            </NavLink>
          ))}
        </nav>
        <div className="who">
          {me.data ? (
            <span>
              {me.data.email} · {me.data.role}
            </span>
          ) : null}
          <button type="button" onClick={() => clearSession()}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
