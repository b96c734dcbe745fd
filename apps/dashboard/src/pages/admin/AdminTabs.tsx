import type { ReactNode } from 'react';
import { NavLink } from 'react-router';

const TABS = [
  { to: '/admin/inbox', label: 'Inbox' },
  { to: '/admin/overview', label: 'Overview' },
  { to: '/admin/orgs', label: 'Orgs' },
  { to: '/admin/health', label: 'Health' },
] as const;

/** The platform owner's pages; shown only to owners (the main navigation asks the server). */
export function AdminTabs() {
  return (
    <nav className="tabs" aria-label="Platform">
      {TABS.map((t) => (
        <NavLink key={t.to} to={t.to}>
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}

/** One of the tabbed pages: its title, the tabs, then the page. */
export function AdminPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h1>{title}</h1>
      <AdminTabs />
      {children}
    </section>
  );
}
