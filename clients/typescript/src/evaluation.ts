/**
 * The types of `evaluate`: offline evaluation of an experiment's variants on a dataset
 * (docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate). Wire names stay snake_case,
 * as the server serves them; the options are camelCase, as `assign`'s and `wrap`'s are.
 */

/** A dataset item as `GET /v1/datasets/{id}/items` returns it. */
export interface DatasetItem {
  id: string;
  /** A string or a JSON object. */
  input: string | Record<string, unknown>;
  /** Any JSON value; null when the item has none. */
  expected_output: unknown;
  variables: Record<string, unknown>;
  metadata: Record<string, unknown>;
  group: string | null;
}

/** What the task is called with, once per (item, variant, repeat). */
export interface EvaluationTaskInput {
  item: DatasetItem;
  /** The variant key this call runs. */
  variant: string;
  /** The variant's prompt text; null when the variant has none. */
  prompt: string | null;
  /** The variant's variables with the item's `variables` merged over them (a new object). */
  variables: Record<string, unknown>;
  /** From 0. */
  repeat: number;
}

/**
 * Runs one item through one variant and returns the output: a string or any JSON value. What
 * it throws becomes the result's `error`. Model calls it makes through a client from `wrap` are
 * measured and attached to the result instead of being sent as online events.
 */
export type EvaluationTask = (input: EvaluationTaskInput) => unknown;

/** What a custom scorer's `score` function is called with, after the task succeeded. */
export interface ScoreInput {
  item: DatasetItem;
  variant: string;
  output: unknown;
  repeat: number;
}

export type ScorerDirection = 'increase' | 'decrease';

/** A scorer the server computes (or, for `custom`, one whose values the caller uploads). */
export interface ServerScorer {
  /** Unique in the run; a measured scorer is named as its kind. */
  name: string;
  kind:
    | 'exact_match'
    | 'contains'
    | 'json_valid'
    | 'levenshtein'
    | 'numeric_close'
    | 'judge'
    | 'custom'
    | 'latency_ms'
    | 'total_tokens'
    | 'cost'
    | 'error_rate';
  direction?: ScorerDirection;
  non_inferiority_margin?: number;
  /** exact_match only; default true. */
  case_sensitive?: boolean;
  /** numeric_close only, required there. */
  tolerance?: number;
  /** judge only. */
  rubric?: string;
}

/**
 * A custom scorer computed in the client: `score` gives the result's value (a finite number;
 * anything else, or a throw, gives no value). The function itself is never sent.
 */
export interface FunctionScorer {
  name: string;
  kind: 'custom';
  direction?: ScorerDirection;
  non_inferiority_margin?: number;
  score: (input: ScoreInput) => number | PromiseLike<number>;
}

export type EvaluationScorer = ServerScorer | FunctionScorer;

export interface EvaluationProgress {
  /** Results finished by this call (uploaded or queued for upload). */
  done: number;
  /** Results this call runs: every (item, variant, repeat), less those a resumed run held. */
  total: number;
}

export interface EvaluateOptions {
  /** The experiment whose variants run: its id or name. */
  experiment: string;
  /** The dataset: its id or name. */
  dataset: string;
  task: EvaluationTask;
  scorers?: readonly EvaluationScorer[];
  /** Runs of each item by each variant, 1–10. Default 1. */
  repeats?: number;
  /** Tasks running at once, at least 1. Default 4 (`EVALUATION_CONCURRENCY`). */
  concurrency?: number;
  /** Variant keys to run (they must include the baseline); all of them when absent. */
  variants?: readonly string[];
  /**
   * Resumes this run instead of creating one: only the (item, variant, repeat) it lacks run.
   * `scorers`' functions still score them; the run's own variants, repeats and dataset version
   * apply.
   */
  runId?: string;
  /** The dataset version to pin; the latest when absent. */
  datasetVersion?: number;
  /** Free text for people, kept on the run. */
  note?: string;
  /** Called after each result. */
  onProgress?: (progress: EvaluationProgress) => void;
}

export interface OfflineComparison {
  scorer: string;
  treatment: string;
  baseline: string;
  direction: ScorerDirection;
  n_items: number;
  mean_baseline: number | null;
  mean_treatment: number | null;
  mean_difference: number | null;
  relative_difference: number | null;
  ci_low: number | null;
  ci_high: number | null;
  test: 'mcnemar_exact' | 'paired_t';
  p_value: number | null;
  p_value_fdr: number | null;
  significant: boolean;
  outcome: 'better' | 'worse' | 'inconclusive';
  improved_items: number;
  regressed_items: number;
  tied_items: number;
  non_inferiority_margin: number | null;
  non_inferior: boolean | null;
  mdd: number | null;
  items_needed: number | null;
}

export interface OfflineNonDeterminism {
  scorer: string;
  variant: string;
  n_items: number;
  sd_within_items: number | null;
  sd_between_items: number | null;
  flip_rate: number | null;
  pass_all: number | null;
  unstable_items: string[] | null;
}

export interface OfflineCoverage {
  expected_results: number;
  received_results: number;
  missing_results: number;
  failed_results: number;
  missing: { item_id: string; variant: string; repeat: number }[];
}

/** An offline run as `GET /v1/offline-runs/{run_id}` serves it. */
export interface OfflineRun {
  id: string;
  experiment_id: string;
  experiment_version: number;
  dataset_id: string;
  dataset_version: number;
  /** The baseline first. */
  variants: string[];
  baseline: string;
  repeats: number;
  scorers: {
    name: string;
    kind: string;
    direction: ScorerDirection;
    non_inferiority_margin: number | null;
    case_sensitive?: boolean;
    tolerance?: number;
  }[];
  note: string | null;
  status: 'running' | 'scoring' | 'complete' | 'failed';
  failure_reason: string | null;
  item_count: number;
  expected_results: number;
  received_results: number;
  coverage: OfflineCoverage | null;
  /** Keyed `<scorer>::<treatment>`; null until complete. */
  comparisons: Record<string, OfflineComparison> | null;
  /** Keyed `<scorer>::<variant>`; empty with one repeat, null until complete. */
  summary: Record<string, OfflineNonDeterminism> | null;
  /** Per treatment; null until complete. */
  gates: Record<string, { passed: boolean; reasons: string[] }> | null;
  created_at: string;
  completed_at: string | null;
}
