import { useSearchParams } from 'react-router';
import type { Experiment, Results } from '../../api/client.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { num } from './format.ts';

type Metric = Experiment['metrics'][number];
const VIEWS = [
  { key: 'user', label: 'Per user' },
  { key: 'call', label: 'Per call' },
] as const;
type View = (typeof VIEWS)[number]['key'];

const dollars = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? '—' : `$${num(x, 4)}`;

const perCall = (m: Metric) =>
  m.kind === 'ratio' && m.numerator?.of === 'cost' && m.denominator?.of === 'calls';
const perConversion = (m: Metric) =>
  m.kind === 'ratio' &&
  m.numerator?.of === 'cost' &&
  m.denominator?.business_metric !== undefined &&
  m.denominator.of === 'count';

/** Each arm's value of metric `name` (control first), from any of its pairs. */
function armValues(run: Results, name: string, arms: readonly string[]) {
  const pairs = Object.values(run.results).filter((r) => r.metric === name);
  const out = new Map<string, number | null>();
  for (const r of pairs)
    for (const a of arms) if (a in r.mean_per_arm) out.set(a, r.mean_per_arm[a] ?? null);
  return { values: out, capped: pairs[0]?.capping };
}

/**
 * What each arm costs in dollars: per user (each cost metric: a user's spend over the window,
 * averaged, within its cap when it has one) or per call (a ratio metric of cost over calls),
 * and per conversion where a ratio metric of cost over a business metric's count asks for it.
 * The view is in the URL (`cost=call`), so it is a link.
 */
export function CostPanel({ experiment, run }: { experiment: Experiment; run: Results }) {
  const [params, setParams] = useSearchParams();
  const view: View = params.get('cost') === 'call' ? 'call' : 'user';
  const userMetrics = experiment.metrics.filter(
    (m) => m.kind === 'cost' && m.quantile === undefined,
  );
  const callMetrics = experiment.metrics.filter(perCall);
  const conversionMetrics = experiment.metrics.filter(perConversion);
  if (userMetrics.length + callMetrics.length + conversionMetrics.length === 0) return null;
  const arms = Object.keys(run.arms);
  const shown = [...(view === 'user' ? userMetrics : callMetrics), ...conversionMetrics];
  const choose = (next: View) =>
    setParams(
      (p) => {
        if (next === 'user') p.delete('cost');
        else p.set('cost', next);
        return p;
      },
      { replace: true },
    );
  return (
    <section className="card cost" aria-labelledby="cost-title" data-testid="cost-panel">
      <h2 id="cost-title">Cost per arm</h2>
      <fieldset className="segmented">
        <legend>View</legend>
        {VIEWS.map((v) => (
          <label key={v.key}>
            <input
              type="radio"
              name="cost-view"
              value={v.key}
              checked={view === v.key}
              onChange={() => choose(v.key)}
            />{' '}
            {v.label}
          </label>
        ))}
      </fieldset>
      {view === 'call' && callMetrics.length === 0 ? (
        <p className="hint" data-testid="cost-per-call-missing">
          No cost per call: add a ratio metric with numerator {'{"of": "cost"}'} and denominator{' '}
          {'{"of": "calls"}'}.
        </p>
      ) : null}
      {shown.length ? <CostTable run={run} arms={arms} metrics={shown} /> : null}
    </section>
  );
}

function CostTable({ run, arms, metrics }: { run: Results; arms: string[]; metrics: Metric[] }) {
  return (
    <DataTable label="Cost per arm" columns={['Metric', ...arms]}>
      {metrics.map((m) => {
        const { values, capped } = armValues(run, m.name, arms);
        return (
          <tr key={m.name} data-testid={`cost-${m.name}`}>
            <th scope="row">
              {m.name}{' '}
              <span className="hint">
                ({unitOf(m)}
                {capped ? ', capped' : ''})
              </span>
            </th>
            {arms.map((a) => (
              <td key={a}>{dollars(values.get(a))}</td>
            ))}
          </tr>
        );
      })}
    </DataTable>
  );
}

function unitOf(m: Metric): string {
  if (perCall(m)) return 'per call';
  if (perConversion(m)) return `per ${m.denominator?.business_metric}`;
  return 'per user';
}
