import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Experiment } from '../../api/client.ts';
import { armColour, armOrder } from '../../charts/arm-colour.ts';
import { countAxis } from '../../charts/ticks.ts';
import { Empty, QueryView } from '../../components/states.tsx';
import { useTraffic } from '../experiments/queries.ts';

/** Exposures per UTC day per variant, oldest first. */
export function TrafficTab({ experiment }: { experiment: Experiment }) {
  const traffic = useTraffic(experiment.id);
  const arms = experiment.allocation.map((a) => a.variant);
  const variants = armOrder(experiment);
  return (
    <QueryView query={traffic} what="traffic">
      {(t) =>
        t.days.length === 0 ? (
          <Empty>No exposures yet.</Empty>
        ) : (
          <figure>
            <figcaption>Exposures per day and variant</figcaption>
            <div
              role="img"
              aria-label={`Exposures per day for ${arms.join(', ')} over ${t.days.length} days`}
            >
              <ResponsiveContainer width="100%" height={260}>
                <LineChart data={t.days.map((d) => ({ day: d.day, ...d.exposures }))}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="day" />
                  <YAxis
                    width={56}
                    {...countAxis(t.days.flatMap((d) => Object.values(d.exposures)))}
                  />
                  <Tooltip />
                  <Legend itemSorter={null} />
                  {arms.map((a) => (
                    <Line
                      key={a}
                      dataKey={a}
                      stroke={armColour(variants, a)}
                      isAnimationActive={false}
                      dot
                    />
                  ))}
                </LineChart>
              </ResponsiveContainer>
            </div>
          </figure>
        )
      }
    </QueryView>
  );
}
