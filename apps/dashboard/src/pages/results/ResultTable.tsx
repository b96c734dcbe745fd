import type { MetricResult } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { decidedOn } from './decided-on.ts';
import { armValue, effectValue, moreDays, percent, pValue } from './format.ts';

const maybeP = (p: number | null) => (p === null ? '—' : pValue(p));

/** On a manual run the sequential columns say so, and the fixed-horizon p joins for reference. */
const resultColumns = (preliminary: boolean): string[] => [
  'Treatment',
  'Control value (n)',
  'Treatment value (n)',
  preliminary ? 'Effect (always-valid 95% CI)' : 'Effect (95% CI)',
  'Lift',
  `${preliminary ? 'Always-valid ' : ''}FDR-adjusted p-value`,
  preliminary ? 'Always-valid p-value' : 'p-value',
  ...(preliminary ? ['Fixed-horizon (reference only)'] : []),
  'Decision',
];

/**
 * One metric's rows: each arm's value with its n, the effect in the metric's unit with its
 * lift, and the interval and p-values the decision was made on. On a manual run those are the
 * always-valid sequential ones, labelled so; the fixed-horizon ones stand after them, for
 * reference only. The FDR-adjusted p-value decides; the raw p-value stands beside it.
 */
export function ResultTable({ rows, preliminary }: { rows: MetricResult[]; preliminary: boolean }) {
  return (
    <DataTable
      label={`Decisions for ${rows[0]?.metric ?? 'metric'}`}
      columns={resultColumns(preliminary)}
    >
      {rows.map((r) => {
        const d = decidedOn(r, preliminary);
        return (
          <tr key={r.treatment} data-testid={`row-${r.metric}-${r.treatment}`}>
            <th scope="row">{r.treatment}</th>
            <ArmCell r={r} arm={r.control} testid="control-value" />
            <ArmCell r={r} arm={r.treatment} testid="treatment-value" />
            <td data-testid="effect">
              {effectValue(r.kind, r.effect)}{' '}
              <span className="hint" data-testid="interval">
                (
                {d.ci_low === null || d.ci_high === null
                  ? '—'
                  : `${effectValue(r.kind, d.ci_low)} to ${effectValue(r.kind, d.ci_high)}`}
                )
              </span>
            </td>
            <td data-testid="lift">{percent(r.lift)}</td>
            <td data-testid="p-fdr">
              <strong>{maybeP(d.p_value_fdr)}</strong>
            </td>
            <td data-testid="p">{maybeP(d.p_value)}</td>
            {preliminary ? (
              <td className="hint" data-testid="fixed-horizon">
                95% CI {effectValue(r.kind, r.ci_low)} to {effectValue(r.kind, r.ci_high)}, p{' '}
                {pValue(r.p_value)}, FDR p {pValue(r.p_value_fdr)}
              </td>
            ) : null}
            <td>
              <Outcome r={r} />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

function ArmCell({ r, arm, testid }: { r: MetricResult; arm: string; testid: string }) {
  return (
    <td data-testid={testid}>
      {armValue(r.kind, r.mean_per_arm[arm])}{' '}
      <span className="hint">(n = {r.n_per_arm[arm] ?? 0})</span>
    </td>
  );
}

/** Better in green, worse in red, both significant; the rest inconclusive, with the wait. */
function Outcome({ r }: { r: MetricResult }) {
  if (!r.ok) return <span className="badge">not computable: {r.reason}</span>;
  if (r.outcome === 'better') return <span className="badge better">better (significant)</span>;
  if (r.outcome === 'worse') return <span className="badge worse">worse (significant)</span>;
  const needed = r.users_needed_per_arm ?? null;
  const days = r.days_to_decision ?? null;
  return (
    <>
      <span className="badge">not significant</span>
      {needed !== null ? (
        <span className="hint wait" data-testid="wait">
          {' '}
          {days === null ? 'no user arrived in the last 7 days' : moreDays(days)}: {needed} users
          per arm for a {Number(((r.mde ?? 0) * 100).toPrecision(3))}% change
        </span>
      ) : null}
    </>
  );
}
