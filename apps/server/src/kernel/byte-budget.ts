/**
 * The first of `sized` that fit `budget` bytes together, `limit` at most and never fewer than
 * one: a row over the budget on its own is still served, so a page always moves on.
 */
export function fitByteBudget<T extends { bytes: number }>(
  sized: readonly T[],
  limit: number,
  budget: number,
): T[] {
  const taken: T[] = [];
  let total = 0;
  for (const row of sized.slice(0, limit)) {
    if (taken.length > 0 && total + row.bytes > budget) break;
    taken.push(row);
    total += row.bytes;
  }
  return taken;
}
