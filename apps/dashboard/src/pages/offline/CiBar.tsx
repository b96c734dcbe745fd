import type { Comparison } from '../../api/client.ts';

/** Green better, red worse, grey inconclusive: the forest plot's colours. */
const COLOURS = { better: '#15803d', worse: '#b91c1c', inconclusive: '#64748b' } as const;
const WIDTH = 160;
const HEIGHT = 18;

/** The span every bar of one scorer shares, 0 included, so its treatments compare by eye. */
export function barScale(rows: Comparison[]): [number, number] {
  const ends = rows.flatMap((r) => [r.ci_low, r.ci_high, r.mean_difference]);
  const values = ends.filter((x): x is number => x !== null);
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const pad = (hi - lo) * 0.08 || 1;
  return [lo - pad, hi + pad];
}

/**
 * The mean difference as a mark and its 95% interval as a bar, against a line at 0, coloured
 * by the outcome the server decided. The numbers stand in the cell beside it; the picture is
 * named for screen readers all the same.
 */
export function CiBar({
  row,
  scale,
  label,
}: {
  row: Comparison;
  scale: [number, number];
  label: string;
}) {
  if (row.mean_difference === null) return null;
  const [lo, hi] = scale;
  const x = (v: number) => ((v - lo) / (hi - lo)) * WIDTH;
  const colour = COLOURS[row.outcome];
  const low = row.ci_low ?? row.mean_difference;
  const high = row.ci_high ?? row.mean_difference;
  return (
    <svg
      className="ci-bar"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
      data-testid="ci-bar"
    >
      <line x1={x(0)} x2={x(0)} y1={0} y2={HEIGHT} stroke="#0f172a" />
      <rect
        x={x(low)}
        y={HEIGHT / 2 - 3}
        width={Math.max(1, x(high) - x(low))}
        height={6}
        rx={2}
        fill={colour}
      />
      <rect
        x={x(row.mean_difference) - 4}
        y={HEIGHT / 2 - 4}
        width={8}
        height={8}
        fill={colour}
        stroke="#fff"
      />
    </svg>
  );
}
