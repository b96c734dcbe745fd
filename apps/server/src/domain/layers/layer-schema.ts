import { type Static, Type } from 'typebox';
import { BucketCount, ConfigName, Salt } from '../../schemas/experiment-config.ts';
import { Text } from '../../schemas/text.ts';

const nameSchema = ConfigName(
  'Unique in the org; what an experiment’s `layer` names; letters, digits, space, `_`, `.`, `-`; not shaped like a UUID; frozen',
);

export const LayerInputSchema = Type.Object(
  {
    name: nameSchema,
    salt: Salt(
      'Frozen hashing input of the layer (`salt:user_id`); may not contain ":"; use one no experiment uses',
    ),
    bucket_count: BucketCount(
      'Frozen: the layer’s buckets, which its experiments own in disjoint runs',
    ),
    description: Type.Optional(Text({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type LayerInput = Static<typeof LayerInputSchema>;

const BucketRunSchema = Type.Object({
  experiment_id: Type.String({ format: 'uuid' }),
  experiment: Type.String({ description: 'The experiment’s name' }),
  start: Type.Integer(),
  end: Type.Integer(),
  retired: Type.Boolean({
    description:
      'Given up by the experiment (its layer_weight shrank): answers null forever and is never handed to another experiment',
  }),
});

export const LayerSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  salt: Type.String(),
  bucket_count: Type.Integer(),
  bucket_map: Type.Array(BucketRunSchema, {
    description:
      'Every run of the layer’s buckets ever handed out, by start: which experiment owns it, or owned it (retired). Buckets in no run are never used',
  }),
  free_buckets: Type.Integer({
    description: 'Buckets never handed out: what a new experiment or a growing layer_weight takes',
  }),
  version: Type.Integer({ minimum: 1, description: 'Rises with every change of the bucket map' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Layer = Static<typeof LayerSchema>;
