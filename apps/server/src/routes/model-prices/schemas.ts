import { Type } from 'typebox';

export const TAGS = ['model-prices'];

const Rate = (what: string) =>
  Type.Number({ minimum: 0, maximum: 10_000, description: `US dollars per million ${what}` });

export const Pattern = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:/@-]*$',
  description:
    'A model name; it also prices its dated snapshots (`gpt-4o` prices `gpt-4o-2024-08-06`, never `gpt-4o-mini`). Matched without regard to case.',
});

export const EffectiveFrom = Type.String({
  format: 'date',
  description: 'The UTC day from which the row prices calls (by their timestamps)',
});

/** A row as an admin sends it. */
export const PriceInputSchema = Type.Object(
  {
    pattern: Pattern,
    effective_from: EffectiveFrom,
    input_per_million: Rate('input tokens'),
    output_per_million: Rate('output tokens'),
    cached_input_per_million: Type.Optional(
      Type.Union([Rate('input tokens read from the cache'), Type.Null()], {
        description: 'Absent or null: the input rate',
      }),
    ),
    reasoning_per_million: Type.Optional(
      Type.Union([Rate('reasoning tokens'), Type.Null()], {
        description: 'Absent or null: the output rate',
      }),
    ),
    source: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false },
);

const RowFields = {
  pattern: Type.String(),
  effective_from: Type.String({ format: 'date' }),
  currency: Type.Literal('USD'),
  input_per_million: Type.Number(),
  output_per_million: Type.Number(),
  cached_input_per_million: Type.Union([Type.Number(), Type.Null()]),
  reasoning_per_million: Type.Union([Type.Number(), Type.Null()]),
  source: Type.Union([Type.String(), Type.Null()]),
  ref: Type.String({ description: 'What a call this row priced names in `priced_by`' }),
};

export const OrgRowSchema = Type.Object(RowFields);

export const PriceListSchema = Type.Object({
  currency: Type.Literal('USD'),
  built_in: Type.Array(Type.Object({ ...RowFields, provider: Type.String() }), {
    description: 'The table shipped with the server, each row with its source',
  }),
  org: Type.Array(OrgRowSchema, {
    description: "Your org's rows: one in effect wins over the built-in table",
  }),
});

export const PriceKeyQuery = Type.Object(
  { pattern: Pattern, effective_from: EffectiveFrom },
  { additionalProperties: false },
);
