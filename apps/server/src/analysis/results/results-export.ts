import { stringify } from 'csv-stringify/sync';
import { type Static, type TSchema, Type } from 'typebox';
import {
  type MetricResult,
  MetricResultSchema,
  type SliceMetricResult,
} from '../../schemas/analysis-run.ts';
import type { Results } from './results-schema.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * One exported row: a (metric, treatment) pair of a run with every MetricResult field, flat,
 * plus the run's label, kind, window and SRM gate. Per-arm fields become `_control` and
 * `_treatment` columns, CUPED's, the unadjusted test's and the sequence's blocks prefixed
 * columns (null when absent), the histogram a JSON text; then the pair's direction, outcome,
 * violation and time-to-decision estimate, and the run's decision (its reasons a JSON text).
 * The property order is the column order.
 */
const result = MetricResultSchema.properties;

export const ExportRowSchema = Type.Object({
  experiment_id: Type.String(),
  run_label: Type.String(),
  run_kind: Type.String({ description: 'nightly or manual' }),
  window_start: Type.String({ format: 'date-time' }),
  window_end: Type.String({ format: 'date-time' }),
  computed_at: Type.String({ format: 'date-time' }),
  srm_p_value: Nullable(Type.Number()),
  srm_halted: Type.Boolean(),
  metric: result.metric,
  kind: result.kind,
  category: result.category,
  metric_version: result.metric_version,
  control: result.control,
  treatment: result.treatment,
  test: result.test,
  method_overridden: result.method_overridden,
  ok: result.ok,
  reason: result.reason,
  statistic: result.statistic,
  p_value: result.p_value,
  p_value_fdr: Nullable(result.p_value_fdr),
  significant: Nullable(result.significant),
  effect: result.effect,
  ci_low: result.ci_low,
  ci_high: result.ci_high,
  lift: result.lift,
  n_control: Type.Integer(),
  n_treatment: Type.Integer(),
  mean_control: Nullable(Type.Number()),
  mean_treatment: Nullable(Type.Number()),
  srm_p: result.srm_p,
  permutations_used: result.permutations_used,
  sample_cap_used: result.sample_cap_used,
  window_days: result.window_days,
  retention_truncated: result.retention_truncated,
  preliminary: result.preliminary,
  cuped_theta: Nullable(Type.Number()),
  cuped_variance_reduction: Nullable(Type.Number()),
  cuped_covariate_coverage: Nullable(Type.Number()),
  unadjusted_statistic: Nullable(Type.Number()),
  unadjusted_p_value: Nullable(Type.Number()),
  unadjusted_effect: Nullable(Type.Number()),
  unadjusted_ci_low: Nullable(Type.Number()),
  unadjusted_ci_high: Nullable(Type.Number()),
  sequential_p_value: Nullable(Type.Number()),
  sequential_p_value_fdr: Nullable(Type.Number()),
  sequential_ci_low: Nullable(Type.Number()),
  sequential_ci_high: Nullable(Type.Number()),
  distribution: Type.String({ description: 'The Distribution as JSON text' }),
  // Columns added with decisions stay at the end, so earlier columns keep their positions.
  direction: result.direction,
  outcome: Nullable(result.outcome),
  guardrail_violated: Type.Boolean({ description: 'A guardrail metric whose outcome is worse' }),
  mde: Nullable(Type.Number()),
  users_needed_per_arm: Nullable(Type.Integer()),
  days_to_decision: Nullable(Type.Integer()),
  recommendation: Type.String({ description: 'The run’s decision.recommendation' }),
  recommended_treatment: Nullable(Type.String()),
  decision_reasons: Type.String({ description: 'The run’s decision.reasons as a JSON array' }),
  // Quantile metrics: the calls per arm (their estimates are mean_control and mean_treatment).
  calls_control: Nullable(Type.Integer()),
  calls_treatment: Nullable(Type.Integer()),
  // Breakdowns (?dimension=): after the run's own rows, one row per metric × treatment × slice.
  dimension: Nullable(
    Type.String({ description: 'The breakdown’s dimension; null on the run’s own rows' }),
  ),
  slice: Nullable(
    Type.String({ description: 'The slice’s value or (other); null on the run’s own rows' }),
  ),
  exploratory: Type.Boolean({
    description:
      'A slice row: raw p-value only (p_value_fdr, significant and outcome null), outside the run’s FDR family and decision',
  }),
  // Capped metrics: the bounds (a slice row holds its values within the run's) and the users
  // capped per arm (the run's rows only); null for a metric without a cap.
  cap_upper: Nullable(Type.Number()),
  cap_lower: Nullable(Type.Number()),
  users_capped_control: Nullable(Type.Integer()),
  users_capped_treatment: Nullable(Type.Integer()),
  cap_applied: Nullable(
    Type.Boolean({ description: 'false for mann_whitney, which ranks the uncapped values' }),
  ),
});
export type ExportRow = Static<typeof ExportRowSchema>;

/** The columns in order: the schema's properties. */
export const EXPORT_COLUMNS = Object.keys(ExportRowSchema.properties) as Array<keyof ExportRow>;

type AnyResult = MetricResult | SliceMetricResult;
const whole = (r: AnyResult): Partial<MetricResult> => ('exploratory' in r ? {} : r);

/**
 * One row per (metric, treatment) of a presented run, in the run's key order; then, when the
 * run was presented with a breakdown, one per (metric, treatment) of each slice.
 */
export function exportRows(run: Results): ExportRow[] {
  const own = Object.values(run.results).map((r) => pairRow(run, r, null, null));
  const sliced = (run.breakdown?.slices ?? []).flatMap((s) =>
    Object.values(s.results).map((r) => pairRow(run, r, run.breakdown?.dimension ?? null, s.value)),
  );
  return [...own, ...sliced];
}

function pairRow(
  run: Results,
  r: AnyResult,
  dimension: string | null,
  slice: string | null,
): ExportRow {
  const w = whole(r);
  return {
    experiment_id: run.experiment_id,
    run_label: run.computed_for,
    run_kind: run.preliminary ? 'manual' : 'nightly',
    window_start: run.window.start,
    window_end: run.window.end,
    computed_at: run.computed_at,
    srm_p_value: run.srm.p_value,
    srm_halted: run.srm.halted,
    metric: r.metric,
    kind: r.kind,
    category: r.category,
    metric_version: r.metric_version,
    control: r.control,
    treatment: r.treatment,
    test: r.test,
    method_overridden: r.method_overridden,
    ok: r.ok,
    reason: r.reason,
    statistic: r.statistic,
    p_value: r.p_value,
    p_value_fdr: w.p_value_fdr ?? null,
    significant: w.significant ?? null,
    effect: r.effect,
    ci_low: r.ci_low,
    ci_high: r.ci_high,
    lift: r.lift,
    n_control: r.n_per_arm[r.control] ?? 0,
    n_treatment: r.n_per_arm[r.treatment] ?? 0,
    mean_control: r.mean_per_arm[r.control] ?? null,
    mean_treatment: r.mean_per_arm[r.treatment] ?? null,
    srm_p: r.srm_p,
    permutations_used: r.permutations_used,
    sample_cap_used: r.sample_cap_used,
    window_days: r.window_days,
    retention_truncated: r.retention_truncated,
    preliminary: r.preliminary,
    ...prefixed('cuped', ['theta', 'variance_reduction', 'covariate_coverage'], r.cuped),
    ...prefixed(
      'unadjusted',
      ['statistic', 'p_value', 'effect', 'ci_low', 'ci_high'],
      r.unadjusted,
    ),
    ...prefixed('sequential', ['p_value', 'p_value_fdr', 'ci_low', 'ci_high'], w.sequential),
    distribution: JSON.stringify(r.distribution),
    ...laterColumns(run, r, dimension, slice),
    ...capColumns(run, r),
  } as ExportRow;
}

/** The cap columns: the run's own result's capping, which a slice row shares but for counts. */
function capColumns(run: Results, r: AnyResult): Partial<ExportRow> {
  const own = 'exploratory' in r ? run.results[`${r.metric}::${r.treatment}`] : r;
  const capping = own?.capping;
  const counts = 'exploratory' in r ? undefined : capping?.users_capped;
  return {
    cap_upper: capping?.upper ?? null,
    cap_lower: capping?.lower ?? null,
    users_capped_control: counts?.[r.control] ?? null,
    users_capped_treatment: counts?.[r.treatment] ?? null,
    cap_applied: capping?.applied ?? null,
  };
}

/** The columns added after the first export: decisions, estimates, calls, breakdowns. */
function laterColumns(
  run: Results,
  r: AnyResult,
  dimension: string | null,
  slice: string | null,
): Partial<ExportRow> {
  const w = whole(r);
  return {
    direction: r.direction,
    outcome: w.outcome ?? null,
    guardrail_violated: r.category === 'guardrail' && w.outcome === 'worse',
    mde: w.mde ?? null,
    users_needed_per_arm: w.users_needed_per_arm ?? null,
    days_to_decision: w.days_to_decision ?? null,
    recommendation: run.decision.recommendation,
    recommended_treatment: run.decision.treatment,
    decision_reasons: JSON.stringify(run.decision.reasons),
    calls_control: r.calls_per_arm?.[r.control] ?? null,
    calls_treatment: r.calls_per_arm?.[r.treatment] ?? null,
    dimension,
    slice,
    exploratory: slice !== null,
  };
}

function prefixed(
  prefix: string,
  fields: readonly string[],
  block: Record<string, number> | null | undefined,
): Record<string, number | null> {
  return Object.fromEntries(fields.map((f) => [`${prefix}_${f}`, block?.[f] ?? null]));
}

/**
 * RFC 4180 CSV with a header row: CRLF line ends, fields quoted when they hold a comma, quote
 * or line break, quotes doubled. Booleans are `true`/`false`, null is the empty field, numbers
 * are JavaScript's shortest round-trip form (re-read with Number they are the same double).
 */
export function exportCsv(rows: readonly ExportRow[]): string {
  return stringify(
    rows.map((r) => EXPORT_COLUMNS.map((c) => r[c])),
    {
      header: true,
      columns: EXPORT_COLUMNS.map(String),
      record_delimiter: 'windows',
      cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => String(n) },
    },
  );
}
