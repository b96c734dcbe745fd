import {
  BINARY_KINDS,
  DEFAULT_MDE,
  defaultDirection,
  METHODS,
  METRIC_CATEGORIES,
  METRIC_DIRECTIONS,
  METRIC_KINDS,
  type MetricDirection,
} from '@arbiter/contract';
import { useState } from 'react';
import type { MetricDefinition } from '../../api/client.ts';
import { textRows } from '../../components/text-rows.ts';
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
          onReplace={(metric) => onChange(metrics.map((x, j) => (j === i ? metric : x)))}
          onRemove={() => onChange(metrics.filter((_, j) => j !== i))}
        />
      ))}
      <button type="button" onClick={() => onChange([...metrics, newMetric()])}>
        Add metric
      </button>
    </fieldset>
  );
}

/**
 * One metric: its name, kind (which picks the default test), category (a guardrail is a
 * category), test, which way is better, its minimum detectable effect and, for a judge, rubric.
 */
function MetricRow({
  metric: m,
  label: n,
  onSet,
  onReplace,
  onRemove,
}: {
  metric: MetricDefinition;
  label: string;
  onSet: (patch: Partial<MetricDefinition>) => void;
  onReplace: (metric: MetricDefinition) => void;
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
      <DirectionField metric={m} label={n} onReplace={onReplace} />
      <MdeField metric={m} label={n} onReplace={onReplace} />
      {m.kind === 'judge' ? (
        <label>
          Rubric of {n}
          <textarea
            rows={textRows(m.rubric ?? '', 3)}
            value={m.rubric ?? ''}
            onChange={(e) => onSet({ rubric: e.target.value })}
          />
        </label>
      ) : null}
      <button type="button" onClick={onRemove} aria-label={`Remove ${n}`}>
        Remove
      </button>
    </div>
  );
}

/** One metric's optional field: the metric, its label in the form, and how to replace it. */
interface MetricFieldProps {
  metric: MetricDefinition;
  label: string;
  onReplace: (metric: MetricDefinition) => void;
}

/** Which way is better; empty keeps the kind's default. */
function DirectionField({ metric: m, label: n, onReplace }: MetricFieldProps) {
  return (
    <label>
      Direction of {n}
      <select
        value={m.direction ?? ''}
        onChange={(e) =>
          onReplace(withOptional(m, 'direction', e.target.value as MetricDirection | ''))
        }
      >
        <option value="">kind's default ({defaultDirection(m.kind)} is better)</option>
        {METRIC_DIRECTIONS.map((d) => (
          <option key={d} value={d}>
            {d} is better
          </option>
        ))}
      </select>
    </label>
  );
}

/** The minimum detectable effect the sample-size estimate assumes. */
function MdeField({ metric: m, label: n, onReplace }: MetricFieldProps) {
  // The MDE as typed: a half-typed or unreadable number is sent as it parses (NaN goes out as
  // null), so the server's problem points at the field instead of the form guessing.
  const [mde, setMde] = useState(m.mde === undefined ? '' : String(m.mde));
  // Rows are keyed by position: when another row's removal hands this one a different metric,
  // its text follows the metric.
  if (!Object.is(parseMde(mde), m.mde)) setMde(m.mde === undefined ? '' : String(m.mde));
  return (
    <label>
      MDE of {n} (relative; empty: {DEFAULT_MDE}, a {DEFAULT_MDE * 100}% change)
      {/* No min or max here: the server's problem names the field, as for every other one. */}
      <input
        inputMode="decimal"
        placeholder={String(DEFAULT_MDE)}
        value={mde}
        onChange={(e) => {
          setMde(e.target.value);
          onReplace(withOptional(m, 'mde', parseMde(e.target.value)));
        }}
      />
    </label>
  );
}

const parseMde = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

/**
 * The metric with an optional field set, or removed when empty: an absent field means the
 * default (the kind's direction, an mde of 0.05), which the server fills in itself.
 */
function withOptional<K extends 'direction' | 'mde'>(
  m: MetricDefinition,
  key: K,
  value: MetricDefinition[K] | '' | undefined,
): MetricDefinition {
  const next = { ...m };
  if (value === '' || value === undefined) delete next[key];
  else next[key] = value;
  return next;
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
