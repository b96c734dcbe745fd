import { BINARY_KINDS, METHODS, METRIC_CATEGORIES, METRIC_KINDS } from '@arbiter/contract';
import type { MetricDefinition } from '../../api/client.ts';
import { newMetric } from './form-state.ts';

export function MetricsEditor({
  metrics,
  onChange,
}: {
  metrics: MetricDefinition[];
  onChange: (m: MetricDefinition[]) => void;
}) {
  const set = (i: number, patch: Partial<MetricDefinition>) =>
    onChange(metrics.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  return (
    <fieldset className="card">
      <legend>Metrics</legend>
      {metrics.length === 0 ? <p className="hint">No metrics: a rollout only.</p> : null}
      {metrics.map((m, i) => (
        <MetricRow
          key={`metric-${i.toString()}`}
          metric={m}
          label={m.name || `metric ${i + 1}`}
          onSet={(patch) => set(i, patch)}
          onRemove={() => onChange(metrics.filter((_, j) => j !== i))}
        />
      ))}
      <button type="button" onClick={() => onChange([...metrics, newMetric()])}>
        Add metric
      </button>
    </fieldset>
  );
}

/** One metric: its name, kind (which picks the default test), category, test and, for a judge, rubric. */
function MetricRow({
  metric: m,
  label: n,
  onSet,
  onRemove,
}: {
  metric: MetricDefinition;
  label: string;
  onSet: (patch: Partial<MetricDefinition>) => void;
  onRemove: () => void;
}) {
  return (
    <div className="row">
      <label>
        Metric name
        <input value={m.name} onChange={(e) => onSet({ name: e.target.value })} />
      </label>
      <Choice
        label={`Kind of ${n}`}
        value={m.kind}
        options={METRIC_KINDS}
        onPick={(kind) => {
          const binary = BINARY_KINDS.includes(kind);
          onSet({ kind, method_default: binary ? 'two_proportion_z' : 'welch_t' });
        }}
      />
      <Choice
        label={`Category of ${n}`}
        value={m.category}
        options={METRIC_CATEGORIES}
        onPick={(category) => onSet({ category })}
      />
      <Choice
        label={`Test of ${n}`}
        value={m.method_default}
        options={METHODS}
        onPick={(method_default) => onSet({ method_default })}
      />
      {m.kind === 'judge' ? (
        <label>
          Rubric of {n}
          <textarea value={m.rubric ?? ''} onChange={(e) => onSet({ rubric: e.target.value })} />
        </label>
      ) : null}
      <button type="button" onClick={onRemove} aria-label={`Remove ${n}`}>
        Remove
      </button>
    </div>
  );
}

/** A labelled select over a closed vocabulary; the picked value keeps the vocabulary's type. */
function Choice<T extends string>({
  label,
  value,
  options,
  onPick,
}: {
  label: string;
  value: T;
  options: readonly T[];
  onPick: (value: T) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onPick(e.target.value as T)}>
        {options.map((k) => (
          <option key={k}>{k}</option>
        ))}
      </select>
    </label>
  );
}
