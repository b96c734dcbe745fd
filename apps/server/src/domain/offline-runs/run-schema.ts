import { OFFLINE_SCORE_DOMAIN } from '@arbiter/contract';
import { Type } from 'typebox';
import { VariantKey } from '../../schemas/experiment-config.ts';
import { Text } from '../../schemas/text.ts';
import { ITEM_ID_MAX_LENGTH } from '../datasets/item.ts';

export const RESULTS_MAX_ROWS = 500;
export const REPEATS_MAX = 10;
export const NOTE_MAX_LENGTH = 2000;
export const SCORERS_MAX = 20;
/** As for a judge metric's rubric. */
export const JUDGE_RUBRIC_MAX_LENGTH = 20_000;

/** Scorers computed from the output (and the item's expected output). */
export const OUTPUT_SCORER_KINDS = [
  'exact_match',
  'contains',
  'json_valid',
  'levenshtein',
  'numeric_close',
  'judge',
  'custom',
] as const;
/** Measured from the results themselves; present whenever a result carries them. */
export const MEASURED_SCORERS = ['latency_ms', 'total_tokens', 'cost', 'error_rate'] as const;
export type OutputScorerKind = (typeof OUTPUT_SCORER_KINDS)[number];
export type MeasuredScorer = (typeof MEASURED_SCORERS)[number];
export type ScorerKind = OutputScorerKind | MeasuredScorer;

const Direction = Type.Enum(['increase', 'decrease'], {
  description:
    'Which way is better. Absent: `increase` for quality scorers, `decrease` for the measured ones',
});

export const ScorerInputSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
      description:
        'Unique in the run; a measured scorer (`latency_ms`, `total_tokens`, `cost`, `error_rate`) is named as its kind',
    }),
    kind: Type.Enum([...OUTPUT_SCORER_KINDS, ...MEASURED_SCORERS], {
      description:
        'exact_match, contains, json_valid, numeric_close: 0 or 1; levenshtein: 1 − distance ÷ the longer length in code points; judge: 0 to 1, from the judge model with `rubric` (pro plan or higher; each score counts against the monthly judge allowance); custom: the values uploaded in `scores`; latency_ms, total_tokens, cost, error_rate: measured (listed only to set a direction or margin: they are present whenever results carry them)',
    }),
    direction: Type.Optional(Direction),
    non_inferiority_margin: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1e12,
        description:
          'm, in the scorer’s units: the treatment is non-inferior when ci_low > −m (increase) or ci_high < m (decrease)',
      }),
    ),
    case_sensitive: Type.Optional(Type.Boolean({ description: 'exact_match only; default true' })),
    tolerance: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1e300,
        description: 'numeric_close only, required there: |output − expected| ≤ tolerance scores 1',
      }),
    ),
    rubric: Type.Optional(
      Text({
        minLength: 1,
        maxLength: JUDGE_RUBRIC_MAX_LENGTH,
        description:
          'judge only, required there: what the judge model grades each output against (it also sees the item’s input and expected output)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A scorer as the run keeps it: direction and margin decided. */
export const ScorerSchema = Type.Object({
  name: Type.String(),
  kind: Type.Enum([...OUTPUT_SCORER_KINDS, ...MEASURED_SCORERS]),
  direction: Type.Enum(['increase', 'decrease']),
  non_inferiority_margin: Type.Union([Type.Number(), Type.Null()]),
  case_sensitive: Type.Optional(Type.Boolean()),
  tolerance: Type.Optional(Type.Number()),
  rubric: Type.Optional(Type.String()),
});

export interface Scorer {
  name: string;
  kind: ScorerKind;
  direction: 'increase' | 'decrease';
  non_inferiority_margin: number | null;
  case_sensitive?: boolean;
  tolerance?: number;
  rubric?: string;
}

export const RunInputSchema = Type.Object(
  {
    dataset_id: Text({ minLength: 1, maxLength: 200, description: 'The dataset id, or its name' }),
    dataset_version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'The version to run; the dataset’s latest when absent',
      }),
    ),
    variants: Type.Optional(
      Type.Array(VariantKey, {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description:
          'Variant keys of the experiment’s current version; all of them when absent. They must include the baseline, the variant of the first allocation slice',
      }),
    ),
    repeats: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: REPEATS_MAX,
        default: 1,
        description: 'Runs of each item by each variant',
      }),
    ),
    scorers: Type.Optional(Type.Array(ScorerInputSchema, { maxItems: SCORERS_MAX })),
    note: Type.Optional(Text({ maxLength: NOTE_MAX_LENGTH, description: 'Free text for people' })),
  },
  { additionalProperties: false },
);
export type RunInput = {
  dataset_id: string;
  dataset_version?: number | undefined;
  variants?: string[] | undefined;
  repeats?: number | undefined;
  scorers?: Array<{
    name: string;
    kind: ScorerKind;
    direction?: 'increase' | 'decrease' | undefined;
    non_inferiority_margin?: number | undefined;
    case_sensitive?: boolean | undefined;
    tolerance?: number | undefined;
    rubric?: string | undefined;
  }>;
  note?: string | undefined;
};

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const ComparisonSchema = Type.Object({
  scorer: Type.String(),
  treatment: Type.String(),
  baseline: Type.String(),
  direction: Type.Enum(['increase', 'decrease']),
  n_items: Type.Integer({ description: 'Items where both variants have a value' }),
  mean_baseline: Nullable(Type.Number()),
  mean_treatment: Nullable(Type.Number()),
  mean_difference: Nullable(Type.Number({ description: 'mean(d), d = y(t,i) − y(c,i)' })),
  relative_difference: Nullable(
    Type.Number({ description: 'mean(d) ÷ mean(y(c)); null when that mean is 0' }),
  ),
  ci_low: Nullable(Type.Number({ description: 'mean(d) − t(0.975, n−1) · sd(d) ÷ √n' })),
  ci_high: Nullable(Type.Number({ description: 'mean(d) + t(0.975, n−1) · sd(d) ÷ √n' })),
  test: Type.Enum(['mcnemar_exact', 'paired_t']),
  p_value: Nullable(Type.Number({ description: 'Null with fewer than 2 items' })),
  p_value_fdr: Nullable(
    Type.Number({ description: 'Benjamini–Hochberg over every comparison of the run' }),
  ),
  significant: Type.Boolean({ description: 'p_value_fdr < 0.05' }),
  outcome: Type.Enum(['better', 'worse', 'inconclusive']),
  improved_items: Type.Integer(),
  regressed_items: Type.Integer(),
  tied_items: Type.Integer(),
  non_inferiority_margin: Nullable(Type.Number()),
  non_inferior: Nullable(Type.Boolean({ description: 'Null when the scorer has no margin' })),
  mdd: Nullable(
    Type.Number({ description: '(z(0.975) + z(0.8)) · sd(d) ÷ √n: detectable with 80 % power' }),
  ),
  items_needed: Nullable(
    Type.Integer({
      description: '⌈((z(0.975) + z(0.8)) · sd(d) ÷ |mean(d)|)²⌉; null when mean(d) is 0',
    }),
  ),
});

const NonDeterminismSchema = Type.Object({
  scorer: Type.String(),
  variant: Type.String(),
  n_items: Type.Integer(),
  sd_within_items: Nullable(Type.Number()),
  sd_between_items: Nullable(Type.Number()),
  flip_rate: Nullable(Type.Number({ description: '0/1 scorers only' })),
  pass_all: Nullable(Type.Number({ description: '0/1 scorers only' })),
  unstable_items: Nullable(
    Type.Array(Type.String(), { description: '0/1 scorers only: up to 100 ids, byte order' }),
  ),
});

const CoverageSchema = Type.Object({
  expected_results: Type.Integer(),
  received_results: Type.Integer(),
  missing_results: Type.Integer(),
  failed_results: Type.Integer({ description: 'Results whose task failed (`error`)' }),
  missing: Type.Array(
    Type.Object({ item_id: Type.String(), variant: Type.String(), repeat: Type.Integer() }),
    { description: 'The first 100 missing (item, variant, repeat), by variant, item, repeat' },
  ),
});

export const RunSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  experiment_id: Type.String({ format: 'uuid' }),
  experiment_version: Type.Integer({ description: 'The experiment version pinned' }),
  dataset_id: Type.String({ format: 'uuid' }),
  dataset_version: Type.Integer({ description: 'The dataset version pinned' }),
  variants: Type.Array(Type.String(), { description: 'The variants run, the baseline first' }),
  baseline: Type.String(),
  repeats: Type.Integer(),
  scorers: Type.Array(ScorerSchema),
  note: Nullable(Type.String()),
  status: Type.Enum(['running', 'scoring', 'complete', 'failed'], {
    description:
      '`running` takes results; `complete` moves it to `scoring`, which ends in `complete`, or `failed` with `failure_reason`. A run with a judge scorer stays `scoring` while the judge works through its outputs',
  }),
  failure_reason: Nullable(Type.String()),
  item_count: Type.Integer(),
  expected_results: Type.Integer({ description: 'items × variants × repeats' }),
  received_results: Type.Integer(),
  coverage: Nullable(CoverageSchema),
  comparisons: Nullable(
    Type.Record(Type.String(), ComparisonSchema, {
      description: 'Keyed `<scorer>::<treatment>`; null until complete',
    }),
  ),
  summary: Nullable(
    Type.Record(Type.String(), NonDeterminismSchema, {
      description:
        'Non-determinism keyed `<scorer>::<variant>` (empty when repeats < 2); null until complete',
    }),
  ),
  gates: Nullable(
    Type.Record(
      Type.String(),
      Type.Object({ passed: Type.Boolean(), reasons: Type.Array(Type.String()) }),
      { description: 'Per treatment; null until complete' },
    ),
  ),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
});

const Finite = (description: string) => Type.Number({ minimum: 0, maximum: 1e15, description });

/** One result as uploaded. */
export const ResultRowSchema = Type.Object(
  {
    item_id: Text({ minLength: 1, maxLength: ITEM_ID_MAX_LENGTH }),
    variant: VariantKey,
    repeat: Type.Integer({ minimum: 0, maximum: REPEATS_MAX - 1, description: 'From 0' }),
    output: Type.Optional(
      Type.Unknown({ description: 'What the task returned: a string or any JSON value' }),
    ),
    error: Type.Optional(
      Type.Union([Text({ maxLength: 10_000 }), Type.Null()], {
        description: 'The task failed: no value for output scorers, 1 in error_rate',
      }),
    ),
    latency_ms: Type.Optional(Finite('Measured latency of the task')),
    input_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
    output_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
    cost: Type.Optional(Finite('Cost of the task')),
    model: Type.Optional(Text({ maxLength: 200 })),
    scores: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Number({
          minimum: OFFLINE_SCORE_DOMAIN.minimum,
          maximum: OFFLINE_SCORE_DOMAIN.maximum,
        }),
        { description: 'Values of the run’s custom scorers, by name, each from -1e12 to 1e12' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ResultsAnswerSchema = Type.Object({
  accepted: Type.Integer({ description: 'New results stored' }),
  duplicates: Type.Integer({ description: 'Rows equal to the result already stored' }),
  conflicts: Type.Integer({
    description:
      'Rows that differ from the result stored under their (item, variant, repeat): the first is kept',
  }),
  errors: Type.Array(Type.Object({ index: Type.Integer(), message: Type.String() })),
});
