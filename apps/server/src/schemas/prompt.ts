import { type Static, Type } from 'typebox';
import { FreeFormObject } from './free-form-json.ts';
import { Text } from './text.ts';

/** Field shapes of prompts and their versions (docs/decisions/prompts.md#prompt-fields). */

/** A prompt's name: what clients fetch it by, and a path segment, so no space or slash. */
export const PromptName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
  description: 'Unique in the org; letters, digits, `_`, `.`, `-`',
});

/** A label: lower case, so `Production` and `production` are never two labels. */
export const PromptLabel = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9][a-z0-9_.-]*$',
  description:
    'Lower-case letters, digits, `_`, `.`, `-`; `production` is what clients read by default',
});

/** A template variable: what `{{name}}` names in the text. */
export const VariableName = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' });

export const PromptMessageSchema = Type.Object(
  {
    role: Text({ minLength: 1, maxLength: 32, description: 'system, user, assistant, …' }),
    content: Text({ maxLength: 100_000 }),
  },
  { additionalProperties: false },
);

export type PromptMessage = Static<typeof PromptMessageSchema>;

/** A version's template as stored: a text, or chat messages. */
export type PromptTemplate =
  | { type: 'text'; text: string }
  | { type: 'chat'; messages: PromptMessage[] };

/** What a new version is made of: exactly one of `text` and `messages`. */
export const PromptVersionInputSchema = Type.Object(
  {
    text: Type.Optional(Text({ maxLength: 100_000, description: 'A text prompt' })),
    messages: Type.Optional(
      Type.Array(PromptMessageSchema, {
        minItems: 1,
        maxItems: 100,
        description: 'A chat prompt: its messages in order',
      }),
    ),
    variables: Type.Optional(
      Type.Array(VariableName, {
        maxItems: 100,
        uniqueItems: true,
        description:
          'The template variables, each written `{{name}}` in the text; every placeholder the template holds must be declared',
      }),
    ),
    model_settings: Type.Optional(
      FreeFormObject('Model, temperature, max tokens, …: handed to the caller as written'),
    ),
    note: Type.Optional(Text({ maxLength: 2000, description: 'What changed, as people read it' })),
  },
  { additionalProperties: false },
);

export type PromptVersionInput = Static<typeof PromptVersionInputSchema>;

/** A variant's reference to a stored prompt version, instead of inline text. */
export const PromptReferenceSchema = Type.Object(
  {
    name: PromptName,
    version: Type.Integer({ minimum: 1, description: 'An existing version of the prompt' }),
  },
  { additionalProperties: false },
);

export type PromptReference = Static<typeof PromptReferenceSchema>;
