import type { Experiment } from '../../api/client.ts';
import { armOrder } from '../../charts/arm-colour.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, QueryView } from '../../components/states.tsx';
import { useLive } from '../experiments/queries.ts';
import { Distributions } from './Distributions.tsx';

/** In-flight counts: uncorrected, no SRM gate, no p-values. Labelled so nobody decides on it. */
export function LiveTab({ experiment }: { experiment: Experiment }) {
  const live = useLive(experiment.id);
  return (
    <section>
      <p className="note" role="note">
        <strong>Live view — not for decisions.</strong> Counts are uncorrected: no SRM gate, no
        significance, no FDR. Decide on the results of a run.
      </p>
      <QueryView query={live} what="live counts">
        {(l) => (
          <>
            <DataTable
              label="Live exposures"
              caption="Exposures so far"
              columns={['Arm', 'Exposures', 'Users']}
            >
              {Object.entries(l.arms).map(([arm, s]) => (
                <tr key={arm}>
                  <th scope="row">{arm}</th>
                  <td>{s.exposures}</td>
                  <td>{s.users}</td>
                </tr>
              ))}
            </DataTable>
            {Object.keys(l.distributions).length === 0 ? (
              <Empty>No metric values yet.</Empty>
            ) : (
              Object.entries(l.distributions).map(([metric, dist]) => (
                <Distributions
                  key={metric}
                  title={metric}
                  dist={dist}
                  variants={armOrder(experiment)}
                />
              ))
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}
