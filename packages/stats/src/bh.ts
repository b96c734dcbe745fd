/**
 * Benjamini–Hochberg adjusted p-values, in the input order
 * (statsmodels.stats.multitest.multipletests(p, method='fdr_bh')[1]).
 * Step-up: q_(i) = min over j >= i of m·p_(j)/j, capped at 1, so the output is monotone in p
 * and tied p-values get the same q. Inputs outside [0, 1] are clamped and NaN counts as 1
 * (an uncomputable test never becomes significant), so the output is NaN-free.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const p = pValues.map((v) => (Number.isNaN(v) ? 1 : Math.min(1, Math.max(0, v))));
  // Stable order: ties keep input order; the running minimum gives them equal q anyway.
  const order = p.map((_, i) => i).sort((a, b) => (p[a] as number) - (p[b] as number));
  const adjusted = new Array<number>(m).fill(1);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const i = order[rank - 1] as number;
    running = Math.min(running, ((p[i] as number) * m) / rank);
    adjusted[i] = running;
  }
  return adjusted;
}
