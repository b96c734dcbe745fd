/**
 * The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each cost one, so `--dya` is one step from `--day`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate nearest to what was typed, when it is near enough to be a slip: at most two
 * edits, and at most half the word's length (`x` suggests nothing). A prefix counts as
 * near (`--ver` suggests `--verbose`). Null when nothing is.
 */
export function closest(typed: string, candidates: readonly string[]): string | null {
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance =
      typed.length >= 3 && candidate.startsWith(typed) ? 1 : editDistance(typed, candidate);
    if (best === null || distance < best.distance) best = { candidate, distance };
  }
  if (best === null) return null;
  return best.distance <= 2 && best.distance * 2 <= typed.length ? best.candidate : null;
}
