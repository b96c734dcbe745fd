import type { ReactNode } from 'react';
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
