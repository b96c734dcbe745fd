import {
  DIMENSION_PATTERN,
  EVENT_TEXT_LIMITS,
  MAX_COVARIATE_DAYS,
  MAX_DIMENSIONS,
  METHODS,
  METRIC_CATEGORIES,
  METRIC_DIRECTIONS,
  METRIC_KINDS,
  RATIO_BUSINESS_PARTS,
  RATIO_CALL_PARTS,
} from '@arbiter/contract';
import { type Static, Type } from 'typebox';
import { FreeFormObject } from './free-form-json.ts';
import { PromptReferenceSchema } from './prompt.ts';
import { type RolloutConfig, RolloutSchema } from './rollout.ts';
import { Text, TextMatching } from './text.ts';

/** Field shapes of ExperimentConfig that the contract leaves open are decided here (docs/decisions/experiments.md#experiment-fields). */

export const VariantKey = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' });

export const VariantSchema = Type.Object(
  {
    key: VariantKey,
    prompt: Type.Optional(
      Type.Union([Text({ maxLength: 100_000 }), PromptReferenceSchema], {
        description:
          'The variant’s prompt: inline text, or {name, version} of a stored prompt version, which the client config resolves',
      }),
    ),
    variables: Type.Optional(
      FreeFormObject('Read by the client libraries as the variant’s settings'),
    ),
  },
  { additionalProperties: false },
);

export const AllocationSliceSchema = Type.Object(
  {
    variant: VariantKey,
    /** Percent of all users, in steps of 0.01. */
    weight: Type.Number({ minimum: 0, maximum: 100 }),
  },
  { additionalProperties: false },
);

/**
 * One side of a ratio metric: a sum over the user's model calls, or over one business metric.
 * One object rather than a union, so a wrong `of` gets one message naming the choices
 * (checked with `business_metric` in the config rules).
 */
const RatioPartSchema = Type.Object(
  {
    of: Type.Enum([...RATIO_CALL_PARTS, ...RATIO_BUSINESS_PARTS]),
    business_metric: Type.Optional(Text(EVENT_TEXT_LIMITS.business_metric)),
  },
  {
    additionalProperties: false,
    description:
      'Per user over the window: {of: cost|tokens|latency|calls|errors} sums the user’s model calls (cost_usd, input+output tokens, latency_ms, calls, calls with an error); {business_metric, of: count|value} counts that business metric’s events or sums their values',
  },
);

/**
 * A metric's cap (winsorisation) of per-user values, by percentile of both arms' values pooled
 * over the run's window or by fixed values; one object rather than a union, so a wrong mix gets
 * one message (checked in the config rules: `percentile` or `value`, with `lower_percentile`
 * beside a percentile and `lower` beside a value).
 */
export const MetricCapSchema = Type.Object(
  {
    percentile: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
        description:
          'Per-user values above this percentile of both arms’ values (linear interpolation, as percentile_cont and numpy) are set to it',
      }),
    ),
    lower_percentile: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
        description: 'With percentile: values below this percentile are set to it',
      }),
    ),
    value: Type.Optional(
      Type.Number({ description: 'Per-user values above this value are set to it' }),
    ),
    lower: Type.Optional(
      Type.Number({ description: 'With value: per-user values below this value are set to it' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Caps per-user values before the tests that average them (welch_t, CUPED, permutation; mann_whitney ranks the uncapped values): {percentile[, lower_percentile]} or {value[, lower]}. A new latency, tokens or cost metric gets {percentile: 0.999} unless it says null',
  },
);

export const MetricDefinitionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' }),
    kind: Type.Enum(METRIC_KINDS),
    category: Type.Enum(METRIC_CATEGORIES),
    method_default: Type.Enum(METHODS),
    metric_version: Type.Integer({ minimum: 1 }),
    shared_org_wide: Type.Boolean(),
    direction: Type.Optional(
      Type.Enum(METRIC_DIRECTIONS, {
        description:
          'Which way is better. Absent: decrease for latency, tokens, cost and error_rate, increase for the other kinds',
      }),
    ),
    mde: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 10,
        description:
          'Relative minimum detectable effect the sample-size estimate assumes (0.05 = 5 % of the control mean; default 0.05)',
      }),
    ),
    quantile: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
        description:
          'latency, tokens and cost only: the metric is this quantile (at most four decimals, e.g. 0.95) of all the arm’s model calls in the window, not a per-user mean',
      }),
    ),
    numerator: Type.Optional(RatioPartSchema),
    denominator: Type.Optional(RatioPartSchema),
    description: Type.Optional(Text({ maxLength: 2000 })),
    /** Instructions for the judge model; required for `judge` metrics. */
    rubric: Type.Optional(Text({ minLength: 1, maxLength: 20_000 })),
    cap: Type.Optional(Type.Union([MetricCapSchema, Type.Null()])),
    cuped: Type.Optional(
      Type.Object(
        {
          covariate_days: Type.Integer({
            minimum: 1,
            maximum: MAX_COVARIATE_DAYS,
            description:
              'Pre-period length: the covariate is the same metric per user over this many days before the user’s first exposure',
          }),
        },
        {
          additionalProperties: false,
          description:
            'CUPED variance reduction (off when absent) for revenue, value, cost, latency and tokens metrics tested with welch_t. Users without pre-period data are kept with covariate 0',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A condition over the user's attributes (docs/wire-format.md#the-condition-language-targeting). */
function TargetingSchema() {
  return FreeFormObject(
    'Who may enter: a condition in GrowthBook’s condition language over the attributes passed to assign. A user it does not match gets null (control behaviour) and sends no exposure. {} (or absent) lets everyone in; a condition the evaluator cannot read is refused',
  );
}

/** A name of an experiment, layer or holdout: 1–128 characters from a letter or digit on. */
export function ConfigName(description: string) {
  return Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: '^[A-Za-z0-9][A-Za-z0-9 _.-]*$',
    description,
  });
}

/** A salt: the hashing input before `:user_id`, so it may not contain ":". */
export function Salt(description: string) {
  return TextMatching('^[^:]+$', { minLength: 1, maxLength: 64, description });
}

/** A bucket count: how many buckets the salt hashes users into. */
export function BucketCount(description: string) {
  return Type.Integer({ minimum: 1, maximum: 1_000_000, description });
}

const nameSchema = ConfigName(
  'Unique in the org; letters, digits, space, `_`, `.`, `-`; not shaped like a UUID',
);
const saltSchema = Salt('Frozen bucketing input; may not contain ":"');
const bucketCountSchema = BucketCount('Frozen bucketing input');

const configFields = {
  name: nameSchema,
  salt: saltSchema,
  bucket_count: bucketCountSchema,
  allocation: Type.Array(AllocationSliceSchema, { minItems: 1, maxItems: 100 }),
  metrics: Type.Array(MetricDefinitionSchema, { maxItems: 100 }),
  variants: Type.Optional(Type.Array(VariantSchema, { maxItems: 100 })),
  description: Type.Optional(Text({ maxLength: 5000 })),
  dimensions: Type.Optional(
    Type.Array(Type.String({ pattern: DIMENSION_PATTERN }), {
      maxItems: MAX_DIMENSIONS,
      description:
        'Breakdowns offered on the results (GET …/results?dimension=<name>): model (the model call’s model) or metadata.<key> (a string value of the events’ metadata), each once',
    }),
  ),
  targeting: Type.Optional(TargetingSchema()),
  coverage: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'The share of eligible users (past holdouts, layer and targeting) who enter while the experiment runs, by a hash of its own (docs/wire-format.md#coverage); default 1. Raising it only adds users and moves no one between variants; lowering it takes users out (they get null). The arms keep their shares',
    }),
  ),
  rollout: Type.Optional(RolloutSchema),
  layer: Type.Optional(
    ConfigName(
      'The layer (by name) whose users the experiment shares with the layer’s other experiments, never overlapping them; set at creation and frozen. Needs layer_weight',
    ),
  ),
  layer_weight: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description:
        'Percent of the layer’s users who may enter, in steps of 0.01: ⌊bucket_count × layer_weight ÷ 100⌋ of the layer’s buckets. Growing takes never-used buckets; shrinking retires the highest owned ones for good',
    }),
  ),
};

export const ExperimentConfigSchema = Type.Object(configFields, {
  additionalProperties: false,
});
export type ExperimentConfigInput = Static<typeof ExperimentConfigSchema>;

/** A PUT changes any subset of the config; salt and bucket_count may be sent but must not change. */
export const ExperimentChangeSchema = Type.Object(
  {
    name: Type.Optional(nameSchema),
    salt: Type.Optional(saltSchema),
    bucket_count: Type.Optional(bucketCountSchema),
    allocation: Type.Optional(configFields.allocation),
    metrics: Type.Optional(configFields.metrics),
    variants: configFields.variants,
    description: configFields.description,
    dimensions: configFields.dimensions,
    targeting: configFields.targeting,
    coverage: configFields.coverage,
    rollout: configFields.rollout,
    layer: configFields.layer,
    layer_weight: configFields.layer_weight,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ExperimentChange = Static<typeof ExperimentChangeSchema>;

export type Variant = Static<typeof VariantSchema>;
export type AllocationSlice = Static<typeof AllocationSliceSchema>;
export type MetricDefinition = Static<typeof MetricDefinitionSchema>;
export type MetricCap = Static<typeof MetricCapSchema>;

/** The stored, normalised config of one version: variants always listed. */
export interface ExperimentConfig {
  name: string;
  salt: string;
  bucket_count: number;
  allocation: AllocationSlice[];
  metrics: MetricDefinition[];
  variants: Variant[];
  description?: string;
  /** Breakdown dimensions; absent when none is declared. */
  dimensions?: string[];
  /** Who may enter; absent when everyone may. */
  targeting?: Record<string, unknown>;
  /** The share of eligible users who enter while it runs; absent: 1. */
  coverage?: number;
  /** The ramp of coverage and its guard (docs/rollouts.md); absent: no ramp. */
  rollout?: RolloutConfig;
  /** The layer the experiment belongs to, by name, with its percent of the layer's users. */
  layer?: string;
  layer_weight?: number;
}
