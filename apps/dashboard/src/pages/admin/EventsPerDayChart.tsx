import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { countAxis } from '../../charts/ticks.ts';
import { Empty } from '../../components/states.tsx';

/** Events ingested per UTC day across every org over the last 30 days, oldest first. */
export function EventsPerDayChart({ days }: { days: Array<{ day: string; events: number }> }) {
  const total = days.reduce((n, d) => n + d.events, 0);
  if (total === 0) return <Empty>No events in the last 30 days.</Empty>;
  return (
    <figure>
      <figcaption>Events per day, last 30 days</figcaption>
      <div
        role="img"
        aria-label={`Events per day over ${days.length} days: ${total.toLocaleString()} in all`}
      >
        <ResponsiveContainer width="100%" height={240}>
          <BarChart data={days}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" />
            <YAxis width={64} {...countAxis(days.map((d) => d.events))} />
            <Tooltip />
            <Bar dataKey="events" fill="#1d4ed8" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
