import { type AnyColumn, and, desc, eq, lt, or, type SQL } from 'drizzle-orm';

/**
 * A page of rows newest first by (time, id), the id breaking ties so no row is skipped or shown
 * twice: `after`, the condition for the rows past `after` (an older time, or the same time and
 * a smaller id; none on the first page), and `orderBy`, the order that condition assumes.
 */
export function newestFirst(
  time: AnyColumn,
  id: AnyColumn,
  after: { time: Date; id: string } | null | undefined,
): { after: SQL | undefined; orderBy: [SQL, SQL] } {
  return {
    after: after
      ? or(lt(time, after.time), and(eq(time, after.time), lt(id, after.id)))
      : undefined,
    orderBy: [desc(time), desc(id)],
  };
}
