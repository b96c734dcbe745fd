import { type Static, Type } from 'typebox';
import {
  BucketCount,
  ConfigName,
  MetricDefinitionSchema,
  Salt,
} from '../../schemas/experiment-config.ts';
import { Text } from '../../schemas/text.ts';

const nameSchema = ConfigName(
  'Unique among the org’s holdouts; letters, digits, space, `_`, `.`, `-`; frozen',
);
const saltSchema = Salt(
  'Frozen hashing input (`salt:user_id`); may not contain ":". Absent: one is made',
);
const bucketCountSchema = BucketCount('Frozen');
const percentSchema = Type.Number({
  exclusiveMinimum: 0,
  exclusiveMaximum: 100,
  description:
    'Percent of users held out, in steps of 0.01: buckets [0, ⌈bucket_count × percent ÷ 100⌉). It may grow (moving users from general into the holdout), never shrink',
});
const experimentsSchema = Type.Union(
  [
    Type.Literal('all', { description: 'Every experiment created after the holdout' }),
    Type.Array(Text({ minLength: 1, maxLength: 200 }), {
      maxItems: 1000,
      description: 'Experiments by id or name; stored and served as ids',
    }),
  ],
  { description: 'The experiments whose users the holdout holds out' },
);
const metricsSchema = Type.Array(MetricDefinitionSchema, {
  maxItems: 100,
  description:
    'What the nightly run compares between held-out and general users, as an experiment’s metrics',
});

export const HoldoutInputSchema = Type.Object(
  {
    name: nameSchema,
    salt: Type.Optional(saltSchema),
    bucket_count: bucketCountSchema,
    percent: percentSchema,
    experiments: experimentsSchema,
    metrics: Type.Optional(metricsSchema),
    description: Type.Optional(Text({ maxLength: 5000 })),
  },
  { additionalProperties: false },
);
export type HoldoutInput = Static<typeof HoldoutInputSchema>;

/** A PUT changes percent (growing only), experiments, metrics or description; the rest is frozen. */
export const HoldoutChangeSchema = Type.Object(
  {
    name: Type.Optional(nameSchema),
    salt: Type.Optional(saltSchema),
    bucket_count: Type.Optional(bucketCountSchema),
    percent: Type.Optional(percentSchema),
    experiments: Type.Optional(experimentsSchema),
    metrics: Type.Optional(metricsSchema),
    description: Type.Optional(Text({ maxLength: 5000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type HoldoutChange = Static<typeof HoldoutChangeSchema>;

export const HoldoutSchema = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'Also the `experiment_id` of the holdout’s exposures (variant holdout or general)',
  }),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  salt: Type.String(),
  bucket_count: Type.Integer(),
  percent: Type.Number(),
  experiments: Type.Union([Type.Literal('all'), Type.Array(Type.String())]),
  ranges: Type.Array(Type.Object({ start: Type.Integer(), end: Type.Integer() }), {
    description: 'Held-out buckets, as /v1/config ships them',
  }),
  metrics: Type.Array(MetricDefinitionSchema),
  version: Type.Integer({ minimum: 1, description: 'Rises with every change' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Holdout = Static<typeof HoldoutSchema>;
