import type { ReactNode } from 'react';
import { ScrollRegion } from './ScrollRegion.tsx';

/**
 * Every table of rows the same way: inside its named scroll region (so a wide one scrolls on a
 * phone and takes keyboard focus), an optional caption, one header row whose cells are column
 * headers, then the caller's rows. Column names are unique within a table, so they key the cells.
 */
export function DataTable({
  label,
  caption,
  columns,
  className,
  testId,
  children,
}: {
  /** The scroll region's accessible name. */
  label: string;
  caption?: ReactNode;
  columns: ReadonlyArray<string>;
  className?: string;
  testId?: string;
  /** The body's rows. */
  children: ReactNode;
}) {
  return (
    <ScrollRegion label={label}>
      <table className={className} data-testid={testId}>
        {caption === undefined ? null : <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollRegion>
  );
}
