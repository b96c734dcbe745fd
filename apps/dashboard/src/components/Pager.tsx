import { useState } from 'react';

/**
 * Cursor pages as the server's lists give them (`starting_after` the last id of the page
 * before, `has_more`): the cursors walked so far are kept, so Previous goes back exactly.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    after: cursors.at(-1),
    page: cursors.length + 1,
    next: (lastId: string) => setCursors((c) => [...c, lastId]),
    previous: () => setCursors((c) => c.slice(0, -1)),
    reset: () => setCursors([]),
  };
}

export function Pager({
  label,
  pages,
  shown,
  busy,
}: {
  /** What is paged, for the navigation's name ("Dataset items"). */
  label: string;
  pages: ReturnType<typeof useCursorPages>;
  /** The page shown: its rows (the last one's id is the next page's cursor) and whether more follow. */
  shown: { data: ReadonlyArray<{ id: string }>; has_more: boolean };
  busy: boolean;
}) {
  const lastId = shown.data.at(-1)?.id;
  const hasMore = shown.has_more;
  if (pages.page === 1 && !hasMore) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={pages.page === 1 || busy} onClick={pages.previous}>
        Previous page
      </button>
      <span aria-live="polite">Page {pages.page}</span>
      <button
        type="button"
        disabled={!hasMore || lastId === undefined || busy}
        onClick={() => lastId !== undefined && pages.next(lastId)}
      >
        Next page
      </button>
    </nav>
  );
}
