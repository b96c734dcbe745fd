import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { QueryList } from './states.tsx';

/**
 * A kind's list page: its title, a line on what the kind is for, the form that makes one, then
 * the list (or a line saying there is none yet).
 */
export function ListPage<L extends ReadonlyArray<unknown>>({
  title,
  intro,
  form,
  query,
  children,
}: {
  title: string;
  intro: ReactNode;
  form: ReactNode;
  query: { isPending: boolean; error: unknown; data: L | undefined };
  children: (list: L) => ReactNode;
}) {
  const what = title.toLowerCase();
  return (
    <section>
      <h1>{title}</h1>
      <p className="hint">{intro}</p>
      {form}
      <QueryList query={query} what={what} empty={`No ${what} yet.`}>
        {children}
      </QueryList>
    </section>
  );
}

/** A row's heading cell: the thing's name, linking to its page. */
export function NameCell({ to, name }: { to: string; name: string }) {
  return (
    <th scope="row">
      <Link to={to}>{name}</Link>
    </th>
  );
}
