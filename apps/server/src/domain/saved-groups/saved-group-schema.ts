import { type Static, Type } from 'typebox';
import { Text, TextMatching } from '../../schemas/text.ts';

/** The most values one saved group holds: each ships to every client in /v1/config. */
export const MAX_SAVED_GROUP_VALUES = 10_000;

const keySchema = TextMatching('^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', {
  description:
    'What `$inGroup`/`$notInGroup` name the group by; unique in the org, frozen, not shaped like a UUID',
});

const valuesSchema = Type.Array(Type.Union([Text({ maxLength: 256 }), Type.Number()]), {
  maxItems: MAX_SAVED_GROUP_VALUES,
  description:
    'The values an attribute is looked up in: strings (at most 256 characters) or numbers, compared as `$in` compares',
});

export const SavedGroupInputSchema = Type.Object(
  {
    key: keySchema,
    values: valuesSchema,
    description: Type.Optional(Text({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type SavedGroupInput = Static<typeof SavedGroupInputSchema>;

/** A PUT changes the values or the description; the key is frozen (conditions name it). */
export const SavedGroupChangeSchema = Type.Object(
  {
    key: Type.Optional(keySchema),
    values: Type.Optional(valuesSchema),
    description: Type.Optional(Text({ maxLength: 2000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SavedGroupChange = Static<typeof SavedGroupChangeSchema>;

export const SavedGroupSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  key: Type.String(),
  description: Type.Optional(Type.String()),
  values: Type.Array(Type.Union([Type.String(), Type.Number()])),
  version: Type.Integer({ minimum: 1, description: 'Rises with every change' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type SavedGroup = Static<typeof SavedGroupSchema>;
