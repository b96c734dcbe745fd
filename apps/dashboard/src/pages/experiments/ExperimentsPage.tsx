import { Link } from 'react-router';
import type { Body, SummaryEntry } from '../../api/client.ts';
import { ScrollRegion } from '../../components/ScrollRegion.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { ExperimentState } from './ExperimentState.tsx';
import { useExperiments, useResultsSummary } from './queries.ts';

export function ExperimentsPage() {
  const experiments = useExperiments();
  const summary = useResultsSummary();
  const latest = new Map<string, SummaryEntry>(
    (summary.data ?? []).map((r) => [r.experiment_id, r] as const),
  );
  return (
    <section>
      <div className="page-head">
        <h1>Experiments</h1>
        <Link className="button" to="/experiments/new">
          New experiment
        </Link>
      </div>
      <QueryView query={experiments} what="experiments">
        {(list) =>
          list.length === 0 ? (
            <Empty>No experiments yet. Create one to start assigning users.</Empty>
          ) : (
            <ScrollRegion label="All experiments">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">State</th>
                    <th scope="col">Last run</th>
                    <th scope="col">Version</th>
                    <th scope="col">Arms</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((e) => (
                    <tr key={e.id}>
                      <td>
                        <Link to={`/experiments/${e.id}/results`}>{e.name}</Link>
                      </td>
                      <td>
                        <ExperimentState id={e.id} latest={latest.get(e.id)} />
                      </td>
                      <td>{lastRunText(latest.get(e.id), e.last_run)}</td>
                      <td>v{e.version}</td>
                      <td>{e.allocation.map((a) => `${a.variant} ${a.weight}%`).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )
        }
      </QueryView>
    </section>
  );
}

type LastRun = Body<'/v1/experiments', 'get'>[number]['last_run'];

/**
 * The run with results the summary serves, or else when the pipeline last looked and what it
 * found (a collecting run stores no results, so the summary does not list it).
 */
function lastRunText(computed: SummaryEntry | undefined, last: LastRun): string {
  if (computed) return computed.computed_for;
  if (last === null) return '—';
  return last.status === 'collecting' ? `${last.label} · still collecting` : last.label;
}
