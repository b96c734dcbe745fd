import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet } from 'react-router';
import { api, ok } from '../api/client.ts';
import { clearSession } from '../auth/session.ts';

const NAV = [
  { to: '/experiments', label: 'Experiments' },
  { to: '/keys', label: 'Keys' },
  { to: '/usage', label: 'Usage' },
  { to: '/audit', label: 'Audit log' },
  { to: '/feedback', label: 'Feedback' },
];

export function Layout() {
  const me = useQuery({ queryKey: ['whoami'], queryFn: () => ok(api.GET('/v1/whoami')) });
  return (
    <div className="shell">
      <header className="top">
        <a className="brand" href="/experiments">
          Arbiter
        </a>
        <nav aria-label="Main">
          {NAV.map((n) => (
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
