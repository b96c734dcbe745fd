import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { QueryView } from './states.tsx';

/**
 * One thing's own page, the same way for each kind: its name as the heading with a line about it
 * beside, its description when it has one, then what is particular to the kind.
 */
export function DetailPage<T extends { name: string; description?: string | null }>({
  query,
  what,
  line,
  lineTestId,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined };
  /** What is loading or missing, as "the dataset". */
  what: string;
  /** The line beside the name: version, size, labels. */
  line: (thing: T) => ReactNode;
  lineTestId?: string;
  children: (thing: T) => ReactNode;
}) {
  return (
    <QueryView query={query} what={what}>
      {(t) => (
        <section>
          <div className="page-head">
            <h1>{t.name}</h1>
            <span className="hint" data-testid={lineTestId}>
              {line(t)}
            </span>
          </div>
          {t.description ? <p>{t.description}</p> : null}
          {children(t)}
        </section>
      )}
    </QueryView>
  );
}

/**
 * The page of one thing of a kind: the route parameter `param` (an id or a name) read with the
 * kind's hook `read`, then framed as DetailPage frames it, with the kind's `line` and `body`.
 * Called once per kind, at module level (`export const DatasetPage = detailPage(…)`), never
 * while rendering: each call makes a new component.
 */
export function detailPage<T extends { name: string; description?: string | null }>(
  param: string,
  read: (key: string) => { isPending: boolean; error: unknown; data: T | undefined },
  what: string,
  view: {
    line: (thing: T) => ReactNode;
    lineTestId?: string;
    body: (thing: T) => ReactNode;
  },
) {
  // biome-ignore lint/correctness/noComponentHookFactories: made once per kind at module level, so each page is one stable component
  return function Page() {
    const key = useParams()[param] ?? '';
    return (
      <DetailPage query={read(key)} what={what} line={view.line} lineTestId={view.lineTestId}>
        {view.body}
      </DetailPage>
    );
  };
}
