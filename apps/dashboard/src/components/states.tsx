import type { ReactNode } from 'react';
import { ProblemError } from '../api/problem.ts';

/** Every failed request is shown as its problem's title and detail, never as a blank page. */
export function ProblemView({ error }: { error: unknown }) {
  const p =
    error instanceof ProblemError
      ? error
      : new ProblemError(0, 'Something went wrong', String(error), 'about:blank');
  return (
    <div className="problem" role="alert">
      <strong>{p.title}</strong>
      {p.detail ? <p>{p.detail}</p> : null}
      {Array.isArray(p.body.errors) ? (
        <ul>
          {(p.body.errors as Array<{ pointer?: string; parameter?: string; detail: string }>).map(
            (e) => (
              <li key={`${e.pointer ?? e.parameter}-${e.detail}`}>
                {e.pointer ?? e.parameter}: {e.detail}
              </li>
            ),
          )}
        </ul>
      ) : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** The three states of a query, so no page forgets one. */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <ProblemView error={query.error} />;
  if (query.isPending || query.data === undefined) return <Loading what={what} />;
  return <>{children(query.data)}</>;
}

/** A list query's states, and one more: an empty list says so (`empty`) instead of a bare frame. */
export function QueryList<L extends ReadonlyArray<unknown>>({
  query,
  what,
  empty,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: L | undefined };
  what: string;
  empty: ReactNode;
  children: (list: L) => ReactNode;
}) {
  return (
    <QueryView query={query} what={what}>
      {(list) => (list.length === 0 ? <Empty>{empty}</Empty> : children(list))}
    </QueryView>
  );
}
