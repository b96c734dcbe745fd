import { type AnyColumn, and, eq, lt, or, type SQL } from 'drizzle-orm';

/**
 * The rows after `after` in a page ordered newest first by (time, id): an older time, or the
 * same time and a smaller id (the id breaks ties, so no row is skipped or shown twice). No
 * condition on the first page (no `after`). Order the query by `desc(time), desc(id)`.
 */
export function olderThan(
  time: AnyColumn,
  id: AnyColumn,
  after: { time: Date; id: string } | null | undefined,
): SQL | undefined {
  if (!after) return undefined;
  return or(lt(time, after.time), and(eq(time, after.time), lt(id, after.id)));
}
