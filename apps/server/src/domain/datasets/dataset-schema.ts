import { Type } from 'typebox';
import { Text } from '../../schemas/text.ts';

export const DATASET_NAME_MAX_LENGTH = 128;
export const DATASET_DESCRIPTION_MAX_LENGTH = 2000;

/** What `POST /v1/datasets` takes. */
export const DatasetInputSchema = Type.Object(
  {
    name: Text({
      minLength: 1,
      maxLength: DATASET_NAME_MAX_LENGTH,
      description: 'Unique in the org; not blank and not shaped like a UUID',
    }),
    description: Type.Optional(
      Text({ maxLength: DATASET_DESCRIPTION_MAX_LENGTH, description: 'Free text for people' }),
    ),
  },
  { additionalProperties: false },
);

/** A dataset as served: its latest version. */
export const DatasetSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  version: Type.Integer({
    minimum: 1,
    description: 'The latest version: 1 at creation, one more at every change of its items',
  }),
  item_count: Type.Integer({ minimum: 0, description: 'Items in the latest version' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({
    format: 'date-time',
    description: 'When the latest version was minted',
  }),
});

/** An item as served: every field present. */
export const DatasetItemSchema = Type.Object({
  id: Type.String({ description: "The caller's stable key of the item, or the one generated" }),
  input: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
    description: 'A string or a JSON object',
  }),
  expected_output: Type.Unknown({ description: 'Any JSON value; null when the item has none' }),
  variables: Type.Record(Type.String(), Type.Unknown(), {
    description: "Merged over the variant's variables",
  }),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  group: Type.Union([Type.String(), Type.Null()], { description: 'A label for breakdowns' }),
});
