export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 1000 || abs < 0.001) return x.toExponential(2);
  return Number(x.toPrecision(digits)).toString();
}

export function pValue(p: number): string {
  if (p < 0.0001) return '< 0.0001';
  return p.toFixed(4);
}

export function percent(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

/** Rows of a run grouped by metric, in the experiment's metric order (others after). */
export function byMetric<R extends { metric: string }>(
  results: Record<string, R>,
  order: readonly string[] = [],
) {
  const groups = new Map<string, R[]>(order.map((m) => [m, []]));
  for (const r of Object.values(results)) {
    const g = groups.get(r.metric) ?? [];
    g.push(r);
    groups.set(r.metric, g);
  }
  return [...groups.entries()].filter(([, rows]) => rows.length > 0);
}
