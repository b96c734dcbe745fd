import { Bar, BarChart, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Distribution } from '../../api/client.ts';
import { variantColor } from '../editor/BucketBar.tsx';
import { num } from './format.ts';

/** Per-arm histogram over the shared bin edges. */
export function Distributions({ title, dist }: { title: string; dist: Distribution }) {
  const arms = Object.keys(dist.counts);
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
            <YAxis allowDecimals={false} width={40} />
            <Tooltip />
            <Legend />
            {arms.map((a) => (
              <Bar key={a} dataKey={a} fill={variantColor(arms, a)} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
