import type { Results } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { pValue } from './format.ts';

/** When the SRM gate halts, results are withheld: the banner says why with the numbers. */
export function SrmBanner({ srm }: { srm: Results['srm'] }) {
  const observed = srm.observed ?? {};
  const shares = srm.expected_shares ?? {};
  const total = Object.values(observed).reduce((n, x) => n + x, 0);
  const shareSum = Object.values(shares).reduce((n, x) => n + x, 0) || 1;
  return (
    <div className="srm-banner" role="alert">
      <strong>Analysis halted: sample ratio mismatch (SRM)</strong>
      <p>
        The observed split of users differs from the configured allocation (SRM p-value{' '}
        {srm.p_value === null ? '—' : pValue(srm.p_value)}, below the 0.001 threshold). Results are
        withheld until the cause is fixed: check assignment, logging and filtering.
      </p>
      <DataTable
        label="Observed vs expected split"
        caption="Observed vs expected users per arm"
        columns={['Arm', 'Observed', 'Expected', 'Observed share', 'Expected share']}
      >
        {Object.keys(shares).map((arm) => {
          const share = (shares[arm] ?? 0) / shareSum;
          const o = observed[arm] ?? 0;
          return (
            <tr key={arm}>
              <th scope="row">{arm}</th>
              <td>{o}</td>
              <td>{Math.round(share * total)}</td>
              <td>{total ? ((o / total) * 100).toFixed(1) : '0.0'}%</td>
              <td>{(share * 100).toFixed(1)}%</td>
            </tr>
          );
        })}
      </DataTable>
    </div>
  );
}

/** After a run's summary line: that the SRM check passed, with its p-value; nothing when it halted. */
export function SrmPassed({ srm }: { srm: Results['srm'] }) {
  if (srm.halted) return null;
  return (
    <>
      {' '}
      · <span data-testid="srm-passed">SRM check passed</span> (p{' '}
      {srm.p_value === null ? '—' : pValue(srm.p_value)}, threshold 0.001)
    </>
  );
}
