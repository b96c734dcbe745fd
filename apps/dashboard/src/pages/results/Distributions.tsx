import { Bar, BarChart, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Distribution } from '../../api/client.ts';
import { armColour } from '../../charts/arm-colour.ts';
import { countAxis } from '../../charts/ticks.ts';
import { num } from './format.ts';

/**
 * Per-arm histogram over the shared bin edges; arms in the experiment's order (`variants`),
 * each in its one colour.
 */
export function Distributions({
  title,
  dist,
  variants,
}: {
  title: string;
  dist: Distribution;
  variants: readonly string[];
}) {
  const arms = Object.keys(dist.counts).sort((a, b) => armRank(variants, a) - armRank(variants, b));
  const data = dist.bin_edges.slice(0, -1).map((edge, i) => {
    const row: Record<string, number | string> = {
      bin: `${num(edge, 2)}–${num(dist.bin_edges[i + 1], 2)}`,
    };
    for (const a of arms) row[a] = dist.counts[a]?.[i] ?? 0;
    return row;
  });
  if (data.length === 0) return <p className="empty">No values for {title} yet.</p>;
  return (
    <figure className="distribution">
      <figcaption>{title}: users per value range, per arm</figcaption>
      <div role="img" aria-label={`Histogram of ${title} for ${arms.join(', ')}`}>
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={data}>
            <XAxis dataKey="bin" tick={{ fontSize: 10 }} />
            <YAxis width={48} {...countAxis(data.flatMap((r) => arms.map((a) => Number(r[a]))))} />
            <Tooltip />
            <Legend itemSorter={null} />
            {arms.map((a) => (
              <Bar key={a} dataKey={a} fill={armColour(variants, a)} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** An arm's place in the experiment's order; arms it lacks after, as armColour places them. */
const armRank = (variants: readonly string[], arm: string) =>
  variants.includes(arm) ? variants.indexOf(arm) : variants.length;
