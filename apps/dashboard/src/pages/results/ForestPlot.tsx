import {
  Bar,
  CartesianGrid,
  ComposedChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  XAxis,
  YAxis,
} from 'recharts';
import type { MetricResult } from '../../api/client.ts';
import { niceTicks } from '../../charts/ticks.ts';
import { decidedOn } from './decided-on.ts';
import { num } from './format.ts';

/** Green better, red worse, grey inconclusive: the same colours as the table's badges. */
const COLOURS = { better: '#15803d', worse: '#b91c1c', inconclusive: '#64748b' } as const;
type Outcome = keyof typeof COLOURS;

/**
 * One metric's effects (treatment − control) with the 95% interval the decision was made on
 * (always-valid on a manual run), one row per treatment. Colour and label follow `outcome`,
 * which the server decides on the FDR-adjusted p-value and the metric's direction.
 */
export function ForestPlot({
  metric,
  title = metric,
  rows,
  preliminary,
}: {
  metric: string;
  /** How the page names the metric ("p95 latency"); its name by default. */
  title?: string;
  rows: MetricResult[];
  preliminary: boolean;
}) {
  const data = plotRows(rows, preliminary);
  const ticks = effectTicks(data.map((r) => r.ci));
  const ciName = preliminary ? 'always-valid 95% CI' : '95% CI';
  const summary = data
    .map(
      (r) =>
        `${r.treatment}: effect ${num(r.effect)} (${ciName} ${num(r.ci[0])} to ${num(r.ci[1])}), ${r.significant ? 'significant' : 'not significant'}, ${r.outcome}`,
    )
    .join('; ');
  return (
    <figure className="forest" data-testid={`forest-${metric}`}>
      <figcaption>
        {title}: effect vs {rows[0]?.control} with {ciName}
      </figcaption>
      <div role="img" aria-label={`Forest plot of ${title}. ${summary}`}>
        <ResponsiveContainer width="100%" height={40 + rows.length * 36}>
          <ComposedChart layout="vertical" data={data} margin={{ left: 8, right: 16 }}>
            <CartesianGrid horizontal={false} strokeDasharray="3 3" />
            <XAxis
              type="number"
              domain={[ticks[0] as number, ticks.at(-1) as number]}
              ticks={ticks}
              interval={0}
              tickFormatter={(v: number) => num(v)}
            />
            <YAxis type="category" dataKey="treatment" width={90} />
            <ReferenceLine x={0} stroke="#0f172a" />
            <Bar
              dataKey="ci"
              barSize={6}
              isAnimationActive={false}
              shape={(props: unknown) => <CiBar {...(props as CiBarProps)} />}
            />
            <Scatter dataKey="effect" isAnimationActive={false} shape={<EffectDot />} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Each treatment's effect with the interval the decision was made on. */
function plotRows(rows: MetricResult[], preliminary: boolean) {
  return rows.map((r) => {
    const d = decidedOn(r, preliminary);
    return {
      treatment: r.treatment,
      effect: r.effect,
      ci: [d.ci_low ?? r.effect, d.ci_high ?? r.effect] as [number, number],
      outcome: r.outcome as Outcome,
      significant: r.significant,
    };
  });
}

/** Round ticks over every interval and 0, with a little room on each side. */
function effectTicks(intervals: Array<[number, number]>): number[] {
  const lo = Math.min(0, ...intervals.map((ci) => ci[0]));
  const hi = Math.max(0, ...intervals.map((ci) => ci[1]));
  const pad = (hi - lo) * 0.08 || 1;
  return niceTicks(lo - pad, hi + pad);
}

interface CiBarProps {
  x: number;
  y: number;
  width: number;
  height: number;
  payload: { outcome: Outcome };
}

function CiBar({ x, y, width, height, payload }: CiBarProps) {
  const colour = COLOURS[payload.outcome] ?? COLOURS.inconclusive;
  return <rect x={x} y={y} width={Math.max(1, width)} height={height} fill={colour} rx={2} />;
}

function EffectDot(props: { cx?: number; cy?: number; payload?: { outcome: Outcome } }) {
  const { cx = 0, cy = 0, payload } = props;
  const colour = COLOURS[payload?.outcome ?? 'inconclusive'] ?? COLOURS.inconclusive;
  return <rect x={cx - 5} y={cy - 5} width={10} height={10} fill={colour} stroke="#fff" />;
}
