import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { ExperimentState } from '../experiments/ExperimentState.tsx';
import { useExperiments, useResultsSummary } from '../experiments/queries.ts';
import { StatusBadge } from '../lifecycle/StatusBadge.tsx';
import { conclusionText, type PromptUse, promptUses } from './usage.ts';

/** Every state, archived too: an archived experiment's conclusion is still history. */
const EVERY_STATE = 'draft,running,stopped,archived';

/**
 * The experiments whose variants reference this prompt: which version each variant used, the
 * state, what a stop concluded and the last run's verdict.
 */
export function PromptExperiments({ name }: { name: string }) {
  const experiments = useExperiments(EVERY_STATE);
  return (
    <section className="card" aria-labelledby="experiments-heading">
      <h2 id="experiments-heading">Experiments on this prompt</h2>
      <QueryView query={experiments} what="experiments">
        {(list) => {
          const uses = promptUses(list, name);
          return uses.length === 0 ? (
            <Empty>No experiment has referenced a version of this prompt yet.</Empty>
          ) : (
            <UsesTable uses={uses} />
          );
        }}
      </QueryView>
    </section>
  );
}

function UsesTable({ uses }: { uses: PromptUse[] }) {
  const summary = useResultsSummary();
  return (
    <DataTable
      label="Experiments on this prompt"
      columns={['Experiment', 'Versions', 'Status', 'Concluded', 'Last verdict']}
    >
      {uses.map((u) => (
        <tr key={u.experiment.id} data-testid={`use-${u.experiment.name}`}>
          <th scope="row">
            <Link to={`/experiments/${u.experiment.id}/results`}>{u.experiment.name}</Link>
          </th>
          <td>{u.variants.map((v) => `${v.key}: v${v.version}`).join(', ')}</td>
          <td>
            <StatusBadge status={u.experiment.status} />
          </td>
          <td>{conclusionText(u) ?? '—'}</td>
          <td>
            <ExperimentState
              id={u.experiment.id}
              status={u.experiment.status}
              latest={summary.data?.find((r) => r.experiment_id === u.experiment.id)}
            />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
