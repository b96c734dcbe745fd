import { Type } from 'typebox';
import {
  AllocationSliceSchema,
  MetricDefinitionSchema,
  VariantSchema,
} from '../../schemas/experiment-config.ts';
import { RolloutSchema } from '../../schemas/rollout.ts';

/** How an experiment was stopped. */
export const StopSchema = Type.Object({
  conclusion: Type.Enum(['ship', 'rollback', 'inconclusive']),
  served_variant: Type.String({
    description: 'The variant every eligible user gets: the shipped one, else the control',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  stopped_at: Type.String({ format: 'date-time' }),
  stopped_by: Type.String({ description: 'The actor as the audit log names them' }),
});

/** The Experiment as served: its config plus server-set fields. */
export const ExperimentSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  version: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  salt: Type.String(),
  bucket_count: Type.Integer(),
  allocation: Type.Array(AllocationSliceSchema),
  metrics: Type.Array(MetricDefinitionSchema),
  variants: Type.Array(VariantSchema),
  dimensions: Type.Optional(Type.Array(Type.String())),
  targeting: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  coverage: Type.Optional(
    Type.Number({ description: 'The share of eligible users who enter; absent: 1' }),
  ),
  rollout: Type.Optional(RolloutSchema),
  layer: Type.Optional(Type.String({ description: 'The layer the experiment is in, by name' })),
  layer_weight: Type.Optional(Type.Number({ description: 'Percent of the layer’s users' })),
  layer_ranges: Type.Optional(
    Type.Array(Type.Object({ start: Type.Integer(), end: Type.Integer() }), {
      description:
        'The layer buckets the experiment owns in this version (sorted half-open runs); only a user whose layer bucket is in one may enter',
    }),
  ),
  bucket_ranges: Type.Array(
    Type.Object({ variant: Type.String(), start: Type.Integer(), end: Type.Integer() }),
    {
      description:
        'Half-open bucket runs each variant owns in this version; a bucket in none is not enrolled',
    },
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'When this version was minted' }),
  status: Type.Enum(['draft', 'running', 'stopped', 'archived'], {
    description:
      'Where the experiment is in its lifecycle (the experiment’s now, in every version listed): draft serves no one, running assigns by bucket, stopped serves stop.served_variant, archived is absent from the config',
  }),
  stop: Type.Union([StopSchema, Type.Null()], {
    description: 'null unless stopped, or archived after a stop',
  }),
});
