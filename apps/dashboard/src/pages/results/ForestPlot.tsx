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
import { num } from './format.ts';

const SIGNIFICANT = '#1d4ed8';
const NOT_SIGNIFICANT = '#64748b';

/**
 * One metric's effects (treatment − control) with their 95% CIs, one row per treatment.
 * Colour and label follow `significant`, which the server decides on the FDR-adjusted p-value.
 */
export function ForestPlot({ metric, rows }: { metric: string; rows: MetricResult[] }) {
  const data = rows.map((r) => ({
    treatment: r.treatment,
    effect: r.effect,
    ci: [r.ci_low, r.ci_high] as [number, number],
    significant: r.significant,
  }));
  const lo = Math.min(0, ...rows.map((r) => r.ci_low));
  const hi = Math.max(0, ...rows.map((r) => r.ci_high));
  const pad = (hi - lo) * 0.08 || 1;
  const summary = rows
    .map(
      (r) =>
        `${r.treatment}: effect ${num(r.effect)} (95% CI ${num(r.ci_low)} to ${num(r.ci_high)}), ${r.significant ? 'significant' : 'not significant'}`,
    )
    .join('; ');
  return (
    <figure className="forest" data-testid={`forest-${metric}`}>
      <figcaption>
        {metric}: effect vs {rows[0]?.control} with 95% CI
      </figcaption>
      <div role="img" aria-label={`Forest plot of ${metric}. ${summary}`}>
        <ResponsiveContainer width="100%" height={40 + rows.length * 36}>
          <ComposedChart layout="vertical" data={data} margin={{ left: 8, right: 16 }}>
            <CartesianGrid horizontal={false} strokeDasharray="3 3" />
            <XAxis
              type="number"
              domain={[lo - pad, hi + pad]}
              tickFormatter={(v: number) => num(v, 2)}
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

interface CiBarProps {
  x: number;
  y: number;
  width: number;
  height: number;
  payload: { significant: boolean };
}

function CiBar({ x, y, width, height, payload }: CiBarProps) {
  const colour = payload.significant ? SIGNIFICANT : NOT_SIGNIFICANT;
  return <rect x={x} y={y} width={Math.max(1, width)} height={height} fill={colour} rx={2} />;
}

function EffectDot(props: { cx?: number; cy?: number; payload?: { significant: boolean } }) {
  const { cx = 0, cy = 0, payload } = props;
  const colour = payload?.significant ? SIGNIFICANT : NOT_SIGNIFICANT;
  return <rect x={cx - 5} y={cy - 5} width={10} height={10} fill={colour} stroke="#fff" />;
}
