import { QueryView } from '../../components/states.tsx';
import { planName } from '../billing/plan-name.ts';
import { AdminPage } from './AdminTabs.tsx';
import { EventsPerDayChart } from './EventsPerDayChart.tsx';
import { useOverview } from './queries.ts';

export function OverviewPage() {
  const overview = useOverview();
  return (
    <AdminPage title="Platform overview">
      <QueryView query={overview} what="the overview">
        {(o) => (
          <>
            <dl className="totals">
              <Total label="Orgs" value={o.orgs} />
              <Total label="Users" value={o.users} />
              <Total label="Experiments" value={o.experiments} />
              <Total label="Events this month" value={o.events_this_month} />
            </dl>
            <EventsPerDayChart days={o.events_per_day} />
            <table className="narrow">
              <caption>Orgs per plan</caption>
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">Orgs</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(o.plans).map(([plan, count]) => (
                  <tr key={plan}>
                    <td>{planName(plan)}</td>
                    <td>{count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </QueryView>
    </AdminPage>
  );
}

function Total({ label, value }: { label: string; value: number }) {
  return (
    <div className="card">
      <dt>{label}</dt>
      <dd>{value.toLocaleString()}</dd>
    </div>
  );
}
