import { Link, useLocation } from 'react-router';

/** Any address the dashboard has no page for: said plainly, with the way back. */
export function NotFound({ what = 'page' }: { what?: string }) {
  const { pathname } = useLocation();
  return (
    <section className="not-found">
      <h1>No such {what}</h1>
      <p>
        The dashboard has no {what} at <code>{pathname}</code>. The link may be mistyped or out of
        date.
      </p>
      <p>
        <Link to="/experiments">Go to the experiments</Link>
      </p>
    </section>
  );
}
