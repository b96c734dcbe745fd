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
      {metrics.map((m, i) => {
        const n = m.name || `metric ${i + 1}`;
        return (
          <div className="row" key={`metric-${i.toString()}`}>
            <label>
              Metric name
              <input value={m.name} onChange={(e) => set(i, { name: e.target.value })} />
            </label>
            <label>
              Kind of {n}
              <select
                value={m.kind}
                onChange={(e) => {
                  const kind = e.target.value as MetricDefinition['kind'];
                  const binary = BINARY_KINDS.includes(kind);
                  set(i, { kind, method_default: binary ? 'two_proportion_z' : 'welch_t' });
                }}
              >
                {METRIC_KINDS.map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            </label>
            <label>
              Category of {n}
              <select
                value={m.category}
                onChange={(e) =>
                  set(i, { category: e.target.value as MetricDefinition['category'] })
                }
              >
                {METRIC_CATEGORIES.map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            </label>
            <label>
              Test of {n}
              <select
                value={m.method_default}
                onChange={(e) =>
                  set(i, { method_default: e.target.value as MetricDefinition['method_default'] })
                }
              >
                {METHODS.map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            </label>
            {m.kind === 'judge' ? (
              <label>
                Rubric of {n}
                <textarea
                  value={m.rubric ?? ''}
                  onChange={(e) => set(i, { rubric: e.target.value })}
                />
              </label>
            ) : null}
            <button
              type="button"
              onClick={() => onChange(metrics.filter((_, j) => j !== i))}
              aria-label={`Remove ${n}`}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...metrics, newMetric()])}>
        Add metric
      </button>
    </fieldset>
  );
}
