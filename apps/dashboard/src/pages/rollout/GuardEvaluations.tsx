import { DataTable } from '../../components/DataTable.tsx';
import { Empty } from '../../components/states.tsx';
import { utcMinute } from '../lifecycle/lifecycle.ts';
import { pValue } from '../results/format.ts';
import { coverageText, type Evaluation, intervalText, type Ramp } from './ramp.ts';

const ACTION = { none: 'none', paused: 'paused the ramp', rolled_back: 'rolled back' };

/**
 * The guard's latest evaluations, newest first: per guardrail and treatment its always-valid
 * interval and p, the SRM p, and what the guard did. Read from the ramp's own `evaluations`;
 * until the guard runs the list is empty and says so.
 */
export function GuardEvaluations({ ramp }: { ramp: Ramp }) {
  const next = ramp.next_guard_at ? ` Next check ${utcMinute(ramp.next_guard_at)}.` : '';
  return (
    <section aria-label="Guard evaluations">
      <h2>Guard evaluations</h2>
      {ramp.evaluations.length === 0 ? (
        <Empty>No guard evaluation yet.{next}</Empty>
      ) : (
        <DataTable
          label="Guard evaluations by check"
          caption={`Each guardrail's always-valid interval (treatment − control) at each check.${next}`}
          columns={['When', 'Step', 'Guardrails', 'SRM p', 'Action']}
        >
          {ramp.evaluations.map((ev) => (
            <EvaluationRow key={ev.evaluated_at} ev={ev} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function EvaluationRow({ ev }: { ev: Evaluation }) {
  return (
    <tr data-testid="guard-evaluation">
      <td>{utcMinute(ev.evaluated_at)}</td>
      <td>
        {ev.step} ({coverageText(ev.coverage)})
      </td>
      <td>
        {ev.guardrails.length === 0 ? (
          'no guardrail'
        ) : (
          <ul>
            {ev.guardrails.map((g) => (
              <li key={`${g.metric}-${g.treatment}`}>
                {g.metric} · {g.treatment}: {intervalText(g)}, p{' '}
                {g.p_value === null ? '—' : pValue(g.p_value)}{' '}
                {g.worse ? <span className="badge worse">worse</span> : null}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>{ev.srm_p === null ? '—' : pValue(ev.srm_p)}</td>
      <td>
        {ACTION[ev.action]}
        {ev.reason ? `: ${ev.reason}` : ''}
      </td>
    </tr>
  );
}
